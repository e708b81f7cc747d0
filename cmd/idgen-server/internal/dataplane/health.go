package dataplane

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"connectrpc.com/connect"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// HealthServiceName is grpc.health.v1's service, served for the whole server ("") and
// for the IDService.
const HealthServiceName = "grpc.health.v1.Health"

// watchInterval is how often a grpc.health.v1 Watch stream looks at readiness again.
// Readiness follows clocks (the lease's deadline) as well as events, so it is read, not
// pushed: a change reaches every watcher within this interval.
const watchInterval = 100 * time.Millisecond

// healthHandler serves grpc.health.v1 Check and Watch, which say what /readyz says.
// connectrpc.com/grpchealth is not used: its messages are registered under the same
// names as grpc-go's (google.golang.org/grpc/health/grpc_health_v1, already linked
// through etcd's client), and a program linking both panics at start; with grpc-go's
// messages, grpc-go's own health client can be tested against this server.
func (p *Plane) healthHandler(opts ...connect.HandlerOption) (string, http.Handler) {
	const prefix = "/" + HealthServiceName + "/"
	mux := http.NewServeMux()
	mux.Handle(prefix+"Check", connect.NewUnaryHandler(prefix+"Check", p.healthCheck, opts...))
	mux.Handle(prefix+"Watch", connect.NewServerStreamHandler(prefix+"Watch", p.healthWatch, opts...))
	return prefix, mux
}

// healthStatus is the status of service: SERVING when Ready, NOT_SERVING when not, and
// SERVICE_UNKNOWN for a service this server does not serve.
func (p *Plane) healthStatus(service string) healthpb.HealthCheckResponse_ServingStatus {
	if service != "" && service != idgenv1connect.IDServiceName {
		return healthpb.HealthCheckResponse_SERVICE_UNKNOWN
	}
	if ok, _ := p.b.Ready(); !ok {
		return healthpb.HealthCheckResponse_NOT_SERVING
	}
	return healthpb.HealthCheckResponse_SERVING
}

func (p *Plane) healthCheck(_ context.Context, req *connect.Request[healthpb.HealthCheckRequest]) (*connect.Response[healthpb.HealthCheckResponse], error) {
	st := p.healthStatus(req.Msg.GetService())
	if st == healthpb.HealthCheckResponse_SERVICE_UNKNOWN {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown service %q", req.Msg.GetService()))
	}
	return connect.NewResponse(&healthpb.HealthCheckResponse{Status: st}), nil
}

// healthWatch sends the status at once, then each change, as the protocol asks (an
// unknown service is SERVICE_UNKNOWN, not an error). When the server drains it sends
// NOT_SERVING and ends the stream, so that a watcher does not hold the drain up.
func (p *Plane) healthWatch(ctx context.Context, req *connect.Request[healthpb.HealthCheckRequest], stream *connect.ServerStream[healthpb.HealthCheckResponse]) error {
	service := req.Msg.GetService()
	last := p.healthStatus(service)
	if err := stream.Send(&healthpb.HealthCheckResponse{Status: last}); err != nil {
		return err
	}
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		// draining is read first: once it is true, Ready is false, so the status read
		// after it is NOT_SERVING and is sent before the stream ends.
		draining := p.b.Draining()
		st := p.healthStatus(service)
		if st != last {
			if err := stream.Send(&healthpb.HealthCheckResponse{Status: st}); err != nil {
				return err
			}
			last = st
		}
		if draining {
			return nil
		}
	}
}
