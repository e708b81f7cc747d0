package etcdlease

import "go.uber.org/zap"

// quietLogger keeps the etcd client's retry warnings out of the test output.
func quietLogger() *zap.Logger { return zap.NewNop() }
