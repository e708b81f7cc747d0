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
//	ORDERCONSUMER_AMQP_PASSWORD=guest orderconsumer -amqp amqp://guest@127.0.0.1:5672/ -queue orders -db orders.db -listen 127.0.0.1:9464
//	curl -s 127.0.0.1:9464/metrics | grep ^idgen_
//
// An order is what examples/orders accepts: one JSON object {"cents": n}, n a positive
// whole number; anything else (-5 or 0 cents, unknown members, trailing data) is not an
// order. The RabbitMQ password is never a flag, which the process list shows to every
// user: it comes from the file -amqp-password-file names (its first line), or from
// $ORDERCONSUMER_AMQP_PASSWORD, and -amqp is refused with a URL that carries one.
//
// It is in the examples module, as it needs the RabbitMQ client and the Prometheus
// exporter. Its tests (IDGEN_TEST_AMQP_URL set; skipped otherwise) publish 200 orders
// twice each and a bad message, and scrape /metrics over HTTP; publish orders of -5, 0
// and 100 cents; and read the password from a file and the environment.
package main
