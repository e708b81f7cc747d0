package server_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
)

// TestListFits: with the default cap, a List of every kind, with the longest prefix the
// configuration allows, is either received whole by grpc-go's client with its default
// 4 MiB receive limit, or refused before any ID is drawn with the count that fits, and
// that count is then received whole.
func TestListFits(t *testing.T) {
	long := strings.Repeat("a", 63) // typeid's longest prefix
	numPrefix := "INVOICE-ABCDEFGH" // runtime/number's longest prefix
	s := testserver.Start(t, "stores:\n"+testserver.SQLite(t, "local")+`
snowflake:
  layout: classic
  lease: {store: local, ttl: 3s}
tags:
  - {name: seg, kind: segment, store: local}
  - {name: snow, kind: snowflake}
  - {name: snowp, kind: snowflake, prefix: `+long+`}
  - {name: num, kind: number, prefix: `+numPrefix+`, check: true}
  - {name: numh, kind: number, prefix: `+numPrefix+`, time: "2006010215", check: true}
  - {name: uuid, kind: uuid7}
  - {name: tid, kind: typeid, prefix: `+long+`}
`)
	waitReady(t, s.URL)
	conn, err := grpc.NewClient(s.Addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	list := func(tag string, n int) (*v1.ListResponse, error) {
		r := new(v1.ListResponse)
		err := conn.Invoke(ctx, "/idgen.v1.IDService/List", &v1.ListRequest{Tag: tag, Count: int32(n)}, r)
		return r, err
	}
	issued := func() uint64 { return s.Status(nil).GetLease().GetIssued() }
	atMost := regexp.MustCompile(`ask for at most (\d+) a call`)
	for _, tc := range []struct {
		tag     string
		refused bool // the default cap's answer could exceed 4 MiB
	}{
		{"seg", false}, {"snow", false}, {"uuid", false},
		{"snowp", true}, {"num", true}, {"numh", true}, {"tid", true},
	} {
		t.Run(tc.tag, func(t *testing.T) {
			n := config.DefaultMaxCount
			before := issued()
			r, err := list(tc.tag, n)
			if tc.refused {
				m := atMost.FindStringSubmatch(status.Convert(err).Message())
				if status.Code(err) != codes.InvalidArgument || m == nil {
					t.Fatalf("List %d: %v, want INVALID_ARGUMENT naming the count that fits", n, err)
				}
				if after := issued(); after != before {
					t.Fatalf("the refused List drew %d IDs", after-before)
				}
				n, _ = strconv.Atoi(m[1])
				if n < 1000 || n >= config.DefaultMaxCount {
					t.Fatalf("at most %d", n)
				}
				if _, err := list(tc.tag, n+1); status.Code(err) != codes.InvalidArgument {
					t.Fatalf("List %d, one more than fits: %v", n+1, err)
				}
				r, err = list(tc.tag, n)
			}
			if err != nil {
				t.Fatalf("List %d: %v", n, err)
			}
			got, size := len(r.Ids), proto.Size(r)
			if len(r.Texts) > 0 {
				got = len(r.Texts)
			}
			if got != n || size > tags.MaxAnswerBytes {
				t.Fatalf("List %d: %d IDs in %d bytes", n, got, size)
			}
			seen := make(map[string]bool, n)
			for i := range n {
				k := ""
				if len(r.Texts) > 0 {
					k = r.Texts[i]
				} else {
					k = strconv.FormatInt(r.Ids[i], 10)
				}
				if seen[k] {
					t.Fatalf("%q twice", k)
				}
				seen[k] = true
			}
			t.Logf("%s: %d IDs in %d bytes", tc.tag, n, size)
		})
	}
}
