package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"connectrpc.com/connect"

	"github.com/idgen/idgen/cmd/idgen-server/internal/control"
	"github.com/idgen/idgen/cmd/idgen-server/internal/testserver"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// poser answers Status as another instance would: its address and worker ID.
type poser struct {
	idgenv1connect.UnimplementedIDServiceHandler
	address string
	worker  int64
}

func (p poser) Status(context.Context, *connect.Request[v1.StatusRequest]) (*connect.Response[v1.StatusResponse], error) {
	return connect.NewResponse(&v1.StatusResponse{Address: p.address, Ready: true, Lease: &v1.LeaseStatus{Worker: p.worker}}), nil
}

// TestFleetPoser: a peer whose Status names another address than its record's, or
// another worker ID, is shown as such (ReasonMismatch), not as the instance it claims to
// be; one whose answer matches its record is shown.
func TestFleetPoser(t *testing.T) {
	file := t.TempDir() + "/idgen.db"
	a := testserver.Start(t, fleetConfig(file, ""))
	var urls []string
	claims := []poser{{address: "http://10.9.9.9:7070", worker: 900}, {worker: 42}, {worker: 902}}
	for i, c := range claims {
		mux := http.NewServeMux()
		h := httptest.NewUnstartedServer(mux)
		h.Start()
		defer h.Close()
		if c.address == "" {
			claims[i].address = h.URL
		}
		mux.Handle(idgenv1connect.NewIDServiceHandler(claims[i]))
		urls = append(urls, h.URL)
	}
	putRecords(t, file, urls...) // workers 900, 901, 902
	rows := map[string]control.Peer{}
	for _, p := range a.Fleet(context.Background()) {
		rows[p.Address] = p
	}
	for i, want := range []string{control.ReasonMismatch, control.ReasonMismatch, ""} {
		p := rows[urls[i]]
		if p.Reason != want || (want != "" && p.Status != nil) || (want == "" && p.Status == nil) {
			t.Errorf("peer %d (claims %s, worker %d): reason %q, status %v; want reason %q", i, claims[i].address, claims[i].worker, p.Reason, p.Status, want)
		}
	}
}
