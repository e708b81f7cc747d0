package dataplane

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/idgen/idgen/cmd/idgen-server/internal/auth"
	"github.com/idgen/idgen/cmd/idgen-server/internal/config"
	"github.com/idgen/idgen/cmd/idgen-server/internal/tags"
	v1 "github.com/idgen/idgen/idgenclient/idgenv1"
	"github.com/idgen/idgen/idgenclient/idgenv1/idgenv1connect"
)

// api implements the IDService.
type api struct {
	idgenv1connect.UnimplementedIDServiceHandler
	p *Plane
}

var _ idgenv1connect.IDServiceHandler = (*api)(nil)

// lookup returns the tag name the caller's grant allows. A tag the grant does not
// allow, known or not, is PERMISSION_DENIED with the same message, so a token learns
// nothing about tags it may not use; an unknown tag is NOT_FOUND only to a grant of
// every tag.
func (p *Plane) lookup(g *auth.Grant, name string) (*tags.Tag, error) {
	if name == "" {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("tag is required"))
	}
	if !g.Allows(name) {
		return nil, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("this token does not grant tag %q", name))
	}
	t, ok := p.b.Tag(name)
	if !ok {
		return nil, connect.NewError(connect.CodeNotFound, fmt.Errorf("unknown tag %q", name))
	}
	return t, nil
}

// failure turns an issuing error into the answer: a wrong-kind call is
// INVALID_ARGUMENT, the caller's own cancellation is its code, and everything else (a
// store or lease that cannot serve) UNAVAILABLE with a generic message and a retry
// hint, the cause going to the log only.
func (p *Plane) failure(ctx context.Context, t *tags.Tag, call string, err error) error {
	var wk *tags.WrongKindError
	switch {
	case errors.As(err, &wk):
		return connect.NewError(connect.CodeInvalidArgument, err)
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return connect.NewError(connect.CodeCanceled, err)
	}
	p.log.Warn("call failed", "call", call, "tag", t.Name(), "err", err)
	return unavailable(t.Name())
}

// unavailable is the UNAVAILABLE answer for tag: a generic message, a RetryInfo detail
// and a Retry-After header.
func unavailable(tag string) error {
	e := connect.NewError(connect.CodeUnavailable, fmt.Errorf("tag %q cannot issue IDs right now: retry in %v, here or on another server", tag, retryAfter))
	if d, err := connect.NewErrorDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(retryAfter)}); err == nil {
		e.AddDetail(d)
	}
	e.Meta().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	return e
}

func (a *api) Next(ctx context.Context, req *connect.Request[v1.NextRequest]) (*connect.Response[v1.NextResponse], error) {
	t, err := a.p.lookup(auth.FromContext(ctx), req.Msg.Tag)
	if err != nil {
		return nil, err
	}
	cctx, cancel := callContext(ctx)
	defer cancel()
	id, text, err := t.Next(cctx)
	if err != nil {
		return nil, a.p.failure(ctx, t, "Next", err)
	}
	return connect.NewResponse(&v1.NextResponse{Id: id, Text: text}), nil
}

// checkCount refuses a count outside [1, cap] before any work.
func (p *Plane) checkCount(n int64) error {
	if n < 1 || n > int64(p.cfg.Limits.MaxCount) {
		return connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("count %d out of range [1, %d]", n, p.cfg.Limits.MaxCount))
	}
	return nil
}

func (a *api) List(ctx context.Context, req *connect.Request[v1.ListRequest]) (*connect.Response[v1.ListResponse], error) {
	if err := a.p.checkCount(int64(req.Msg.Count)); err != nil {
		return nil, err
	}
	t, err := a.p.lookup(auth.FromContext(ctx), req.Msg.Tag)
	if err != nil {
		return nil, err
	}
	if err := tags.CheckFits(t, int(req.Msg.Count)); err != nil {
		return nil, err
	}
	cctx, cancel := callContext(ctx)
	defer cancel()
	ids, texts, err := t.List(cctx, int(req.Msg.Count))
	if err != nil {
		return nil, a.p.failure(ctx, t, "List", err)
	}
	return connect.NewResponse(&v1.ListResponse{Ids: ids, Texts: texts}), nil
}

func (a *api) Range(ctx context.Context, req *connect.Request[v1.RangeRequest]) (*connect.Response[v1.RangeResponse], error) {
	if err := a.p.checkCount(req.Msg.Count); err != nil {
		return nil, err
	}
	t, err := a.p.lookup(auth.FromContext(ctx), req.Msg.Tag)
	if err != nil {
		return nil, err
	}
	cctx, cancel := callContext(ctx)
	defer cancel()
	r, err := t.Range(cctx, req.Msg.Count, req.Msg.AcceptStride)
	if err != nil {
		return nil, a.p.failure(ctx, t, "Range", err)
	}
	res := &v1.RangeResponse{Start: r.First, Count: r.Len()}
	if r.Stride > 1 && r.Len() > 1 {
		res.Stride = r.Stride // 0 otherwise: the answer of a consecutive run, as before
	}
	return connect.NewResponse(res), nil
}

func (a *api) Decode(ctx context.Context, req *connect.Request[v1.DecodeRequest]) (*connect.Response[v1.DecodeResponse], error) {
	zone, err := config.LoadZone(req.Msg.Zone)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	if len(req.Msg.Id) > 256 {
		return nil, connect.NewError(connect.CodeInvalidArgument, errors.New("id longer than 256 bytes"))
	}
	g := auth.FromContext(ctx)
	if req.Msg.Tag != "" {
		t, err := a.p.lookup(g, req.Msg.Tag)
		if err != nil {
			return nil, err
		}
		r, err := t.Decode(req.Msg.Id, zone)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("%q: %w", req.Msg.Id, err))
		}
		return connect.NewResponse(r), nil
	}
	r, err := Decode(a.p.b.Tags(), g, req.Msg.Id, zone)
	if err != nil {
		return nil, connect.NewError(connect.CodeInvalidArgument, err)
	}
	return connect.NewResponse(r), nil
}

func (a *api) DescribeTag(ctx context.Context, req *connect.Request[v1.DescribeTagRequest]) (*connect.Response[v1.DescribeTagResponse], error) {
	t, err := a.p.lookup(auth.FromContext(ctx), req.Msg.Tag)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&v1.DescribeTagResponse{Tag: t.Info()}), nil
}

func (a *api) ListTags(ctx context.Context, _ *connect.Request[v1.ListTagsRequest]) (*connect.Response[v1.ListTagsResponse], error) {
	g := auth.FromContext(ctx)
	r := &v1.ListTagsResponse{}
	for _, t := range a.p.b.Tags() {
		if g.Allows(t.Name()) {
			r.Tags = append(r.Tags, t.Info())
		}
	}
	return connect.NewResponse(r), nil
}

func (a *api) Status(ctx context.Context, _ *connect.Request[v1.StatusRequest]) (*connect.Response[v1.StatusResponse], error) {
	return connect.NewResponse(a.p.b.Status(auth.FromContext(ctx))), nil
}

// leaf serves Leaf's plain-text path for tags of kind: GET /api/segment/get/{tag} and
// GET /api/snowflake/get/{tag} answer the ID as text. Errors are a non-2xx status with
// a text reason (Leaf answers 500 for everything).
func (p *Plane) leaf(kind v1.Kind) http.Handler {
	return p.counted("leaf/"+tags.KindName(kind), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = textPlain
		g, ok := p.auth.Check(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="idgen"`)
			http.Error(w, "unauthenticated: "+auth.Refusal(r).Error(), http.StatusUnauthorized)
			return
		}
		name := p.leafTag(g, kind, r.PathValue("tag"))
		t, err := p.lookup(g, name)
		if err != nil {
			var ce *connect.Error
			errors.As(err, &ce)
			http.Error(w, ce.Message(), httpStatus(ce.Code()))
			return
		}
		if t.Kind() != kind {
			http.Error(w, fmt.Sprintf("tag %q is a %s tag, not a %s tag", name, tags.KindName(t.Kind()), tags.KindName(kind)), http.StatusBadRequest)
			return
		}
		ctx, cancel := callContext(r.Context())
		defer cancel()
		id, _, err := t.Next(ctx)
		if err != nil {
			p.log.Warn("call failed", "call", "leaf", "tag", t.Name(), "err", err)
			w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
			http.Error(w, fmt.Sprintf("tag %q cannot issue IDs right now: retry in %v", name, retryAfter), http.StatusServiceUnavailable)
			return
		}
		w.Write(strconv.AppendInt(nil, id, 10))
	}))
}

// textPlain is the Content-Type of Leaf's answers, set without canonicalising its name
// on every call. Header.Set replaces the slice, never writes into it.
var textPlain = []string{"text/plain; charset=utf-8"}

// httpStatus maps a connect code to the HTTP status of Leaf's paths.
func httpStatus(c connect.Code) int {
	switch c {
	case connect.CodeInvalidArgument:
		return http.StatusBadRequest
	case connect.CodeUnauthenticated:
		return http.StatusUnauthorized
	case connect.CodePermissionDenied:
		return http.StatusForbidden
	case connect.CodeNotFound:
		return http.StatusNotFound
	case connect.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
