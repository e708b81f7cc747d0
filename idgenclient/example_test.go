package idgenclient_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"connectrpc.com/connect"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/idgenclient"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// counter stands in for idgen-server here: a segment tag "order" whose runs start at 1.
type counter struct {
	idgenv1connect.UnimplementedIDServiceHandler
	next int64
}

func (c *counter) DescribeTag(context.Context, *connect.Request[v1.DescribeTagRequest]) (*connect.Response[v1.DescribeTagResponse], error) {
	return connect.NewResponse(&v1.DescribeTagResponse{Tag: &v1.TagInfo{Name: "order", Kind: v1.Kind_KIND_SEGMENT}}), nil
}

func (c *counter) Range(_ context.Context, r *connect.Request[v1.RangeRequest]) (*connect.Response[v1.RangeResponse], error) {
	start := c.next + 1
	c.next += r.Msg.Count
	return connect.NewResponse(&v1.RangeResponse{Start: start, Count: r.Msg.Count}), nil
}

func ExampleClient_Segment() {
	mux := http.NewServeMux()
	mux.Handle(idgenv1connect.NewIDServiceHandler(&counter{}))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	c, err := idgenclient.New(idgenclient.Options{Addresses: []string{srv.URL}})
	if err != nil {
		panic(err)
	}
	orders, err := c.Segment(context.Background(), "order")
	if err != nil {
		panic(err)
	}
	// orders is an idgen.Source: the ORM plugins and generated types take it as they
	// take a local generator.
	for range 3 {
		id, err := idgen.Next(context.Background(), orders)
		if err != nil {
			panic(err)
		}
		fmt.Println(id)
	}
	// Output:
	// 1
	// 2
	// 3
}
