package graph

import (
	"context"
	"fmt"
	"net/http"
	"reflect"

	"entgo.io/contrib/entgql"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/ent/ent"
	"github.com/idgen/idgen/examples/ent/ent/product"
	"github.com/idgen/idgen/examples/ent/ent/user"
	"github.com/idgen/idgen/examples/ent/models"
)

// NewHandler returns the GraphQL endpoint (POST, JSON) over client.
func NewHandler(client *ent.Client) http.Handler {
	h := handler.New(NewExecutableSchema(Config{Resolvers: &Resolver{client: client}}))
	h.AddTransport(transport.POST{})
	return h
}

// Resolver is the root resolver: the Query's node and nodes fields.
type Resolver struct{ client *ent.Client }

// Query returns the Query resolver.
func (r *Resolver) Query() QueryResolver { return queryResolver{r} }

type queryResolver struct{ *Resolver }

// Node resolves node(id:): the ID's prefix names its type, and so the table to read.
func (r queryResolver) Node(ctx context.Context, id string) (ent.Noder, error) {
	return r.client.Noder(ctx, id, ent.WithNodeType(nodeType))
}

// Nodes resolves nodes(ids:): each ID by its prefix, one query a table; an ID that does not
// resolve is a null in the list and an error at its path. It does not call ent's Noders:
// with IDs of mixed Go types, entgql's Noders finds each row's place by the text MarshalGQL
// writes, which is JSON ("\"usr_…\""), so it finds none (github.com/ent/ent/issues/2985).
func (r queryResolver) Nodes(ctx context.Context, ids []string) ([]ent.Noder, error) {
	nodes := make([]ent.Noder, len(ids))
	errs := make([]error, len(ids))
	at := make(map[string][]int, len(ids)) // where each ID was asked for, by its String
	var users []models.UserID
	var products []models.ProductID
	for i, id := range ids {
		_, v, err := resolve(id)
		switch v := v.(type) {
		case models.UserID:
			users = append(users, v)
		case models.ProductID:
			products = append(products, v)
		default:
			errs[i] = err
			continue
		}
		key := fmt.Sprint(v)
		at[key] = append(at[key], i)
	}
	if len(users) > 0 {
		q, err := r.client.User.Query().Where(user.IDIn(users...)).CollectFields(ctx, "User", "Node")
		if err != nil {
			return nil, err
		}
		rows, err := q.All(ctx)
		if err != nil {
			return nil, err
		}
		for _, u := range rows {
			for _, i := range at[u.ID.String()] {
				nodes[i] = u
			}
		}
	}
	if len(products) > 0 {
		q, err := r.client.Product.Query().Where(product.IDIn(products...)).CollectFields(ctx, "Product", "Node")
		if err != nil {
			return nil, err
		}
		rows, err := q.All(ctx)
		if err != nil {
			return nil, err
		}
		for _, p := range rows {
			for _, i := range at[p.ID.String()] {
				nodes[i] = p
			}
		}
	}
	for i, err := range errs {
		if err == nil && nodes[i] == nil {
			err = entgql.ErrNodeNotFound(ids[i])
		}
		if err != nil {
			graphql.AddError(graphql.WithPathContext(ctx, graphql.NewPathWithIndex(i)), err)
		}
	}
	return nodes, nil
}

// tables maps each node's ID type to its ent table. The ID's text tells its type through
// idgen's registry, with no parser tried on a guess, while the column stays a BIGINT: what
// ent's pulid example does with text keys, at 8 bytes a key.
var tables = map[reflect.Type]string{
	reflect.TypeFor[models.UserID]():    user.Table,
	reflect.TypeFor[models.ProductID](): product.Table,
}

// nodeType is the Noder's type resolver: the table of the ID's type.
func nodeType(_ context.Context, id string) (string, error) {
	t, _, err := resolve(id)
	if err != nil {
		return "", err
	}
	return tables[t.GoType], nil
}

// resolve finds the registered type claiming the ID's prefix and parses the ID with it
// (idgen.Resolve), and checks that the type is a node's: an unknown prefix, a malformed ID
// or another type's ID is an error before any query.
func resolve(id string) (idgen.Type, any, error) {
	t, v, err := idgen.Resolve(id)
	if err != nil {
		return t, nil, fmt.Errorf("graph: node %q: %w", id, err)
	}
	if _, ok := tables[t.GoType]; !ok {
		return t, nil, fmt.Errorf("graph: node %q: %s is not a node's ID type", id, t.Name)
	}
	return t, v, nil
}
