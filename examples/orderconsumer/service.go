package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/glebarez/sqlite"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	amqp "github.com/rabbitmq/amqp091-go"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/sdk/metric"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idgen/idgen"
	"github.com/idgen/idgen/examples/quickstart/models"
	"github.com/idgen/idgen/plugins/idgorm"
	"github.com/idgen/idgen/plugins/idotel"
	"github.com/idgen/idgen/plugins/idrabbit"
	"github.com/idgen/idgen/runtime/consume"
	"github.com/idgen/idgen/runtime/ledger"
	"github.com/idgen/idgen/runtime/snowflake"
	"github.com/idgen/idgen/runtime/sqldb"
)

// Order is one order written by the consumer. MessageID is the message's key; the ledger
// makes the write happen once per key, and the unique index would refuse a second row
// anyway.
type Order struct {
	No        models.OrderNo `gorm:"primaryKey;size:40"` // filled by the idgorm plugin on create
	MessageID string         `gorm:"size:255;not null;uniqueIndex"`
	Cents     int64          `gorm:"not null"`
	CreatedAt time.Time
}

// errBadOrder is the error of a message whose body is not an order; after MaxAttempts
// deliveries the queue dead-letters it.
var errBadOrder = errors.New("orderconsumer: the message is not an order")

// decodeOrder reads an order message's body as examples/orders reads a new order's: one
// JSON object {"cents": n}, n a positive whole number, no other member, nothing after it.
func decodeOrder(body []byte) (cents int64, err error) {
	bad := fmt.Errorf(`%w: want one JSON object {"cents": n}, n a positive whole number of cents`, errBadOrder)
	dec := json.NewDecoder(bytes.NewReader(body))
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
		return 0, fmt.Errorf("%w: cents must be positive, not %d", errBadOrder, *in.Cents)
	}
	return *in.Cents, nil
}

// config is what the service runs on.
type config struct {
	AMQP  string // RabbitMQ URL
	Queue string // declared if missing, with Queue+".dead" for what fails
	DB    string // SQLite file
}

// service is the consumer, its database and its metrics.
type service struct {
	consumer *idrabbit.Consumer
	db       *gorm.DB
	// Metrics serves the Prometheus text format.
	Metrics http.Handler
	closers []func() error
}

// newService connects to RabbitMQ, declares the queue, opens the database and wires the
// metrics: a snowflake generator (behind every OrderNo) and the consumer report through
// idotel to an OpenTelemetry MeterProvider whose reader is the Prometheus exporter.
func newService(ctx context.Context, cfg config) (_ *service, err error) {
	s := &service{} // not the result, which a failure sets to nil before the deferred Close
	defer func() {
		if err != nil {
			s.Close()
		}
	}()

	reg := prometheus.NewRegistry()
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := metric.NewMeterProvider(metric.WithReader(exporter))
	s.closers = append(s.closers, func() error { return mp.Shutdown(context.Background()) })
	s.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
	opts := idotel.Options{MeterProvider: mp}
	ids, err := idotel.NewSnowflake(opts)
	if err != nil {
		return nil, err
	}
	deliveries, err := idotel.NewConsumer(opts)
	if err != nil {
		return nil, err
	}

	// One process, so worker ID 1; a fleet would lease it (runtime/lease).
	gen, err := snowflake.New(snowflake.Classic(), 1, snowflake.Options{Observer: ids})
	if err != nil {
		return nil, err
	}
	idgen.SetDefault(gen)

	if s.db, err = gorm.Open(sqlite.Open("file:"+cfg.DB+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"),
		&gorm.Config{Logger: logger.Discard}); err != nil {
		return nil, err
	}
	sqlDB, err := s.db.DB()
	if err != nil {
		return nil, err
	}
	s.closers = append(s.closers, sqlDB.Close)
	if err := s.db.Use(idgorm.New(idgorm.Config{})); err != nil {
		return nil, err
	}
	if err := s.db.WithContext(ctx).AutoMigrate(&Order{}); err != nil {
		return nil, err
	}
	dl, err := ledger.New(sqldb.SQLite, ledger.Options{})
	if err != nil {
		return nil, err
	}
	if err := dl.CreateTable(ctx, sqlDB); err != nil {
		return nil, err
	}

	conn, err := amqp.Dial(cfg.AMQP)
	if err != nil {
		return nil, fmt.Errorf("orderconsumer: connecting to RabbitMQ: %w", err)
	}
	s.closers = append(s.closers, conn.Close)
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	defer ch.Close()
	if _, _, err := idrabbit.DeclareQueue(ch, cfg.Queue, idrabbit.QueueOptions{}); err != nil {
		return nil, err
	}
	// key is what the ledger records (the message ID scoped by the queue); the order keeps
	// the message ID itself, d.Key.
	process := func(ctx context.Context, key string, d idrabbit.Delivery) (bool, error) {
		cents, err := decodeOrder(d.Body)
		if err != nil {
			return false, err
		}
		// The order and the record of its key commit in one transaction: a redelivery, or
		// a producer's retry, finds the key and writes nothing.
		ran, err := idgorm.OnceTx(s.db.WithContext(ctx), dl, key, func(tx *gorm.DB) error {
			return tx.Create(&Order{MessageID: d.Key, Cents: cents}).Error
		})
		if err != nil && !consume.Unavailable(err) {
			// A failure that counts toward the message's attempts: if the order committed
			// after all (its COMMIT's answer lost), the message is done.
			if done, rerr := dl.Recorded(ctx, sqlDB, key); rerr == nil && done {
				return false, nil
			}
		}
		return ran, err
	}
	if s.consumer, err = idrabbit.NewConsumer(conn, consume.Processor[idrabbit.Delivery](process),
		idrabbit.Options{Queue: cfg.Queue, MaxAttempts: 3, Observer: deliveries}); err != nil {
		return nil, err
	}
	return s, nil
}

// Run consumes until ctx ends.
func (s *service) Run(ctx context.Context) error { return s.consumer.Run(ctx) }

// Close closes the connection, the database and the MeterProvider.
func (s *service) Close() error {
	var errs []error
	for i := len(s.closers) - 1; i >= 0; i-- {
		errs = append(errs, s.closers[i]())
	}
	s.closers = nil
	return errors.Join(errs...)
}
