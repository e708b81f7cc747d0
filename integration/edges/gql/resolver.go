package gql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/idgen/idgen/integration/edges/ids"
)

// Resolver implements ResolverRoot over a database with one table of one column id per
// kind, named in Tables by kind ("snowflake", "prefixed", "number", "uuid7", "typeid",
// "objectid").
type Resolver struct {
	DB     *sql.DB
	Tables map[string]string
}

var _ ResolverRoot = (*Resolver)(nil)

// Query returns the query resolver.
func (r *Resolver) Query() QueryResolver { return queryResolver{r} }

// Mutation returns the mutation resolver.
func (r *Resolver) Mutation() MutationResolver { return mutationResolver{r} }

type queryResolver struct{ *Resolver }

func (queryResolver) Echo(_ context.Context, user *ids.UserID, account *ids.AccountID, order *ids.OrderNo, trace *ids.TraceID, invoice *ids.InvoiceID, document *ids.DocumentID) (*Echo, error) {
	return &Echo{User: user, Account: account, Order: order, Trace: trace, Invoice: invoice, Document: document}, nil
}

func (queryResolver) Lists(_ context.Context, users []ids.UserID, accounts []ids.AccountID, orders []ids.OrderNo, traces []ids.TraceID, invoices []ids.InvoiceID, documents []ids.DocumentID) (*Lists, error) {
	return &Lists{Users: users, Accounts: accounts, Orders: orders, Traces: traces, Invoices: invoices, Documents: documents}, nil
}

func (r queryResolver) Stored(ctx context.Context) (*IDs, error) {
	var v IDs
	for _, c := range r.columns(&v) {
		err := r.DB.QueryRowContext(ctx, "SELECT id FROM "+r.Tables[c.kind]).Scan(c.ptr)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("gql: read %s: %w", c.kind, err)
		}
	}
	return &v, nil
}

// column is one field of IDs: its kind, a pointer to it (to Scan into) and its value as
// columns saw it (what Store writes, through the type's Value).
type column struct {
	kind  string
	ptr   any
	value any
	zero  bool
}

func (r *Resolver) columns(v *IDs) []column {
	return []column{
		{"snowflake", &v.User, v.User, v.User.IsZero()},
		{"prefixed", &v.Account, v.Account, v.Account.IsZero()},
		{"number", &v.Order, v.Order, v.Order.IsZero()},
		{"uuid7", &v.Trace, v.Trace, v.Trace.IsZero()},
		{"typeid", &v.Invoice, v.Invoice, v.Invoice.IsZero()},
		{"objectid", &v.Document, v.Document, v.Document.IsZero()},
	}
}

type mutationResolver struct{ *Resolver }

// Store writes every ID of input in one transaction, refusing an input where one is
// empty text (which reads as the zero ID).
func (r mutationResolver) Store(ctx context.Context, input IDsInput) (*IDs, error) {
	v := IDs(input)
	cols := r.columns(&v)
	for _, c := range cols {
		if c.zero {
			return nil, fmt.Errorf("gql: the %s ID is required", c.kind)
		}
	}
	tx, err := r.DB.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	for _, c := range cols {
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+r.Tables[c.kind]+" (id) VALUES ($1)", c.value); err != nil {
			return nil, fmt.Errorf("gql: store %s: %w", c.kind, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, err
	}
	return &v, nil
}
