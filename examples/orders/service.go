package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/quickstart/models"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// maxAccountLen is the longest X-Account accepted: the width of orders.account.
const maxAccountLen = 64

var (
	errNoAccount   = errors.New("orders: no X-Account header")
	errLongAccount = errors.New("orders: X-Account is longer than 64 bytes")
)

// service is the order service: its database and its routes.
type service struct {
	http.Handler
	db  *gorm.DB
	log *slog.Logger
	// Close closes the database.
	Close func() error
}

// newService opens the SQLite database at path, creates the tables it lacks and returns
// the service. What clients are not told, such as database errors, goes to log.
func newService(ctx context.Context, path string, log *slog.Logger) (*service, error) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		return nil, err
	}
	idgen.SetDefault(gen)
	db, err := gorm.Open(sqlite.Open("file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	s := &service{db: db, log: log, Close: sqlDB.Close}
	if s.Handler, err = s.routes(ctx, sqlDB); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// routes installs the ID plugin, creates the tables and returns the service's handler.
func (s *service) routes(ctx context.Context, sqlDB *sql.DB) (http.Handler, error) {
	if err := s.db.Use(idgorm.New(idgorm.Config{})); err != nil {
		return nil, err
	}
	if err := s.db.WithContext(ctx).AutoMigrate(&Order{}); err != nil {
		return nil, err
	}
	// The idempotency keys live in the same database, through database/sql.
	store, err := idem.NewSQL(sqlDB, sqldb.SQLite, idem.SQLOptions{})
	if err != nil {
		return nil, err
	}
	if err := store.CreateTable(ctx); err != nil {
		return nil, err
	}
	mw, err := idem.New(idem.Config{
		Store:           store,
		Scope:           accountOf,
		Require:         func(*http.Request) bool { return true },
		FingerprintBody: idem.CanonicalJSON,
		// A 400 from the handler is a body refused before anything was stored: give the
		// key back, so the client may fix the body and send it again under the same key.
		Release: func(status int) bool { return status >= 500 || status == http.StatusBadRequest },
		Wait:    10 * time.Second,
		Logger:  s.log,
	})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /orders", mw.Wrap(http.HandlerFunc(s.create)))
	mux.HandleFunc("GET /orders/{no}", s.get)
	return mux, nil
}

// accountOf stands in for authentication: the caller's account is its X-Account header.
// It is the middleware's Scope, and the account GET reads orders of.
func accountOf(r *http.Request) (string, error) {
	a := r.Header.Get("X-Account")
	switch {
	case a == "":
		return "", errNoAccount
	case len(a) > maxAccountLen:
		return "", errLongAccount
	}
	return a, nil
}

// create serves POST /orders behind the idempotency middleware, which has claimed the
// request's key: it stores the order under that key, or finds the order already there.
func (s *service) create(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	key, ok := idem.KeyFrom(ctx)
	if !ok {
		// Require makes the middleware refuse a POST without a key, so this is a
		// wiring mistake of ours, not the client's.
		s.fail(w, r, "no idempotency key in the request context", errors.New("POST /orders is not behind the middleware"))
		return
	}
	cents, err := decodeOrder(r.Body)
	if err != nil {
		problem(w, http.StatusBadRequest, "Invalid order", err.Error())
		return
	}
	o := Order{Account: key.Scope, RequestID: key.Value, Cents: cents}
	// The middleware runs one request per key at a time; the unique key in the table is
	// the last word where it cannot (a claim taken over after LockTimeout, a record past
	// its TTL): the order under the key is loaded instead of a second one inserted.
	created, err := idgorm.CreateOrGet(s.db.WithContext(ctx), &o, idgorm.Key("Account", "RequestID"), idgorm.Check("Cents"))
	switch {
	case errors.Is(err, idgorm.ErrMismatch):
		problem(w, http.StatusUnprocessableEntity, "Idempotency-Key reused", "this key was used for an order with a different amount")
		return
	case err != nil:
		s.fail(w, r, "creating an order", err)
		return
	case !created:
		s.log.LogAttrs(ctx, slog.LevelInfo, "orders: the key already held an order; answering with it",
			slog.String("account", o.Account), slog.String("request_id", o.RequestID), slog.String("no", o.No.String()))
	}
	// The same answer whether this request inserted the order or found it: the answer
	// the first request got.
	w.Header().Set("Location", "/orders/"+o.No.String())
	writeJSON(w, http.StatusCreated, view(o))
}

// get serves GET /orders/{no}: the caller's order with that number. Another account's
// order is answered exactly like a missing one, so numbers cannot be probed.
func (s *service) get(w http.ResponseWriter, r *http.Request) {
	account, err := accountOf(r)
	if err != nil {
		problem(w, http.StatusUnauthorized, "Unauthorized", "the caller could not be identified")
		return
	}
	no, err := models.ParseOrderNo(r.PathValue("no"))
	if err != nil {
		problem(w, http.StatusBadRequest, "Invalid order number", "not an order number: ORD and 25 digits")
		return
	}
	var o Order
	err = s.db.WithContext(r.Context()).Take(&o, "account = ? AND no = ?", account, no).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		problem(w, http.StatusNotFound, "Not found", "no such order")
	case err != nil:
		s.fail(w, r, "reading an order", err)
	default:
		writeJSON(w, http.StatusOK, view(o))
	}
}

// decodeOrder reads a new order's body: one JSON object {"cents": n} with n positive.
// Its errors are meant for the client.
func decodeOrder(body io.Reader) (cents int64, err error) {
	bad := errors.New(`want one JSON object {"cents": n}, n a positive whole number of cents`)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	var in struct {
		Cents *int64 `json:"cents"`
	}
	if err := dec.Decode(&in); err != nil || in.Cents == nil {
		return 0, bad
	}
	if _, err := dec.Token(); err != io.EOF {
		return 0, bad // something after the object
	}
	if *in.Cents <= 0 {
		return 0, errors.New("cents must be positive")
	}
	return *in.Cents, nil
}

// fail answers 500 with a generic message and logs err, which may hold the driver's
// text: the client learns nothing of the database.
func (s *service) fail(w http.ResponseWriter, r *http.Request, doing string, err error) {
	s.log.LogAttrs(r.Context(), slog.LevelError, "orders: "+doing,
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	problem(w, http.StatusInternalServerError, "Internal error", "the request could not be completed; retry later (POST: with the same Idempotency-Key)")
}

func view(o Order) map[string]any {
	return map[string]any{"no": o.No, "cents": o.Cents, "created": o.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// problem writes an RFC 9457 problem+json answer, the shape of the middleware's own.
func problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}{"about:blank", title, status, detail})
}
