package oapi

import (
	"context"
	"database/sql"
	"fmt"
)

// Server implements StrictServerInterface: echoIDs answers with what the generated server
// bound, storeIDs writes each ID to its kind's table in one transaction.
type Server struct {
	DB *sql.DB
	// Tables names the table of each kind ("snowflake", "prefixed", "number", "uuid7",
	// "typeid", "objectid"), each with one column id.
	Tables map[string]string
}

var _ StrictServerInterface = (*Server)(nil)

// EchoIDs answers with the IDs bound from the path and the query.
func (s *Server) EchoIDs(_ context.Context, r EchoIDsRequestObject) (EchoIDsResponseObject, error) {
	p := r.Params
	return EchoIDs200JSONResponse{
		Path: IDs{User: r.User, Account: r.Account, Order: r.Order, Trace: r.Trace, Invoice: r.Invoice, Document: r.Document},
		Query: Query{
			User: p.User, Users: p.Users, Account: p.Account, Accounts: p.Accounts,
			Order: p.Order, Orders: p.Orders, Trace: p.Trace, Traces: p.Traces,
			Invoice: p.Invoice, Invoices: p.Invoices, Document: p.Document, Documents: p.Documents,
		},
	}, nil
}

// StoreIDs writes the body's IDs, refusing a body where one is missing: empty text reads
// as the zero ID, which the API does not accept.
func (s *Server) StoreIDs(ctx context.Context, r StoreIDsRequestObject) (StoreIDsResponseObject, error) {
	b := r.Body
	for _, f := range []struct {
		name string
		zero bool
	}{
		{"user", b.User.IsZero()}, {"account", b.Account.IsZero()}, {"order", b.Order.IsZero()},
		{"trace", b.Trace.IsZero()}, {"invoice", b.Invoice.IsZero()}, {"document", b.Document.IsZero()},
	} {
		if f.zero {
			return StoreIDs400JSONResponse{Message: f.name + " is required"}, nil
		}
	}
	tx, err := s.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, v := range []struct {
		kind string
		id   any
	}{
		{"snowflake", b.User}, {"prefixed", b.Account}, {"number", b.Order},
		{"uuid7", b.Trace}, {"typeid", b.Invoice}, {"objectid", b.Document},
	} {
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+s.Tables[v.kind]+" (id) VALUES ($1)", v.id); err != nil {
			return nil, fmt.Errorf("oapi: store %s: %w", v.kind, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return StoreIDs201JSONResponse(*b), nil
}
