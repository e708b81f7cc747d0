// Package idemtest is the conformance suite of idem.Store: what every store keeps,
// checked against a store of yours. runtime/idem's memory and SQL stores and
// plugins/redis/redisidem run it; a Store for another database passes it before the
// middleware or Once runs on it.
//
//	func TestStore(t *testing.T) {
//		idemtest.Run(t, newStore(t)) // an empty table or key prefix of its own
//	}
package idemtest
