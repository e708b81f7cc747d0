// Command orders is an HTTP order service on embedded SQLite that puts idgen together:
// POST /orders with an Idempotency-Key header creates an order once however often the
// client retries; GORM's idgen plugin gives the order its snowflake ID and its order number;
// GET /orders/{no} reads one back.
//
//	go run ./examples/orders -addr 127.0.0.1:8080
//	curl -s -X POST -H 'Idempotency-Key: k1' -H 'X-Account: acme' -d '{"cents":1999}' localhost:8080/orders
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/quickstart/models"
	idgorm "github.com/idgen/idgen/plugins/gorm"
	"github.com/idgen/idgen/runtime/idem"
	"github.com/idgen/idgen/runtime/snowflake"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("orders: ")
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	dbPath := flag.String("db", "", "SQLite file (default: a temporary one)")
	flag.Parse()
	if *dbPath == "" {
		dir, err := os.MkdirTemp("", "idgen-orders-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		*dbPath = filepath.Join(dir, "orders.db")
	}
	h, closeDB, err := newService(context.Background(), *dbPath)
	if err != nil {
		log.Fatal(err)
	}
	defer closeDB()
	log.Printf("listening on %s, database %s", *addr, *dbPath)
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	log.Fatal(srv.ListenAndServe())
}

// newService opens the database and returns the service's handler.
func newService(ctx context.Context, path string) (http.Handler, func() error, error) {
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{})
	if err != nil {
		return nil, nil, err
	}
	idgen.SetDefault(gen)
	db, err := gorm.Open(sqlite.Open("file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, nil, err
	}
	if err := db.Use(idgorm.New(idgorm.Config{})); err != nil {
		return nil, nil, err
	}
	if err := db.AutoMigrate(&models.Order{}); err != nil {
		return nil, nil, err
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, nil, err
	}
	// The idempotency keys live in the same database, through database/sql.
	store, err := idem.NewSQLStore(sqlDB, "sqlite")
	if err != nil {
		return nil, nil, err
	}
	if err := store.CreateTable(ctx); err != nil {
		return nil, nil, err
	}
	mw, err := idem.New(idem.Config{
		Store:   store,
		Require: func(r *http.Request) bool { return r.Method == http.MethodPost },
		Scope: func(r *http.Request) (string, error) {
			// Stands in for authentication: the caller's account.
			if a := r.Header.Get("X-Account"); a != "" {
				return a, nil
			}
			return "", errors.New("missing X-Account")
		},
		Wait: 10 * time.Second,
	})
	if err != nil {
		return nil, nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("POST /orders", mw.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Cents int64 `json:"cents"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Cents <= 0 {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "want {\"cents\": a positive amount}"})
			return
		}
		o := models.Order{RequestID: r.Header.Get("Idempotency-Key"), Cents: in.Cents}
		if err := db.WithContext(r.Context()).Create(&o).Error; err != nil {
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
			return
		}
		writeJSON(w, http.StatusCreated, view(o))
	})))
	mux.HandleFunc("GET /orders/{no}", func(w http.ResponseWriter, r *http.Request) {
		no, err := models.ParseOrderNo(r.PathValue("no"))
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
			return
		}
		var o models.Order
		if err := db.WithContext(r.Context()).First(&o, "no = ?", no).Error; err != nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such order"})
			return
		}
		writeJSON(w, http.StatusOK, view(o))
	})
	return mux, sqlDB.Close, nil
}

func view(o models.Order) map[string]any {
	return map[string]any{"no": o.No, "cents": o.Cents, "created": o.CreatedAt.UTC().Format(time.RFC3339Nano)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
