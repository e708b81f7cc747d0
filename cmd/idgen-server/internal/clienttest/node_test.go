package clienttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
)

// nodeDir is the Node client test's folder.
var nodeDir = filepath.Join("..", "..", "testdata", "node")

// needNode returns the path of node, or skips when node or the test's node_modules are
// missing, unless IDGEN_TEST_NODE=1 (set by .ci/run after .ci/server ran `npm ci`) says they must
// be there: then it fails.
func needNode(t *testing.T) string {
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeDir, "node_modules", "@connectrpc", "connect-node"))
	}
	if err != nil {
		msg := "the Node client test needs node (20 or later) and `npm ci` in cmd/idgen-server/testdata/node (.ci/server does both): " + err.Error()
		if os.Getenv("IDGEN_TEST_NODE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}

// TestNode runs the Node.js client test (testdata/node/idgen.test.mjs, node:test on
// @connectrpc/connect-node with bindings generated from the same proto) against a
// running server: IDs and a business number are strings, unique and increasing per tag,
// and a List of a long-prefixed number tag fits gRPC's default 4 MiB receive limit.
func TestNode(t *testing.T) {
	node := needNode(t)
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`
snowflake:
  layout: classic
  lease: {store: local, ttl: 3s}
tokens: [{token: `+token+`}]
tags:
  - {name: id, kind: snowflake}
  - {name: order, kind: segment, store: local}
  - {name: ord, kind: number, prefix: ORD, check: true}
  - {name: inv, kind: number, prefix: INVOICE-ABCDEFGH, check: true}
`)
	testserver.WaitReady(t, s.URL)
	cmd := exec.Command(node, "--test", "--test-reporter=spec", "idgen.test.mjs")
	cmd.Dir = nodeDir
	cmd.Env = append(os.Environ(), "IDGEN_URL="+s.URL, "IDGEN_TOKEN="+token,
		"IDGEN_SNOWFLAKE_TAG=id", "IDGEN_SEGMENT_TAG=order", "IDGEN_NUMBER_TAG=ord", "IDGEN_NUMBER_PREFIX=ORD", "IDGEN_LONG_TAG=inv")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
