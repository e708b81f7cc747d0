// Orderconsumer consumes orders from a RabbitMQ queue and writes each exactly once to
// SQLite with GORM, numbered with a generated OrderNo, and serves its metrics for
// Prometheus on /metrics through the OpenTelemetry Prometheus exporter.
//
// A message's ID is its key: the order row and the record of the key (ledger.Ledger) commit
// in one transaction (idgorm.OnceTx), so a redelivery or a producer's retry writes
// nothing, and the message is acknowledged only after that commit. A message that is not
// an order fails three times and is dead-lettered to the queue's ".dead" queue. The
// snowflake generator behind every OrderNo reports to idotel.Snowflake and the consumer to
// idotel.Consumer, on a MeterProvider whose reader is the Prometheus exporter:
//
//	orderconsumer -amqp amqp://guest:guest@127.0.0.1:5672/ -queue orders -db orders.db -listen 127.0.0.1:9464
//	curl -s 127.0.0.1:9464/metrics | grep ^idgen_
//
// It is a module of its own, as it needs the RabbitMQ client and the Prometheus exporter.
// Its test (IDGEN_TEST_AMQP_URL set; skipped otherwise) publishes 200 orders twice each
// and a bad message, and scrapes /metrics over HTTP.
package main
