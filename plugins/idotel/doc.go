// Package idotel records idgen's events as OpenTelemetry metrics: it implements the hook
// interfaces of the snowflake generator, worker-ID leases, segment allocators, the idem
// middleware and queue consumers with instruments of go.opentelemetry.io/otel/metric.
//
// It is a module of its own (github.com/idgen/idgen/plugins/idotel), so the core module
// never depends on OpenTelemetry. Each adapter is made by a constructor taking [Options]
// and is plugged into the hook it implements:
//
//	ids, err := idotel.NewSnowflake(idotel.Options{})     // snowflake.Options.Observer
//	leases, err := idotel.NewLease(idotel.Options{})      // lease.Config.OnEvent: leases.OnEvent
//	segments, err := idotel.NewSegment(idotel.Options{})  // segment.Options.Observer, then Track
//	requests, err := idotel.NewIdem(idotel.Options{})     // idem.Config.Observer
//	deliveries, err := idotel.NewConsumer(idotel.Options{}) // the broker adapters' Options.Observer
//
// # Instruments
//
// Names and units follow the OpenTelemetry semantic conventions' style (dotted names under
// "idgen.", durations in seconds, counts in curly-brace units, attributes in snake case):
//
//	idgen.ids.issued               counter (observable)  {id}       IDs issued
//	idgen.clock.wait.duration      histogram             s          waits for the clock
//	idgen.clock.rollbacks          counter               {rollback} clocks found behind the last ID
//	idgen.clock.rollback.size      histogram             s          how far behind
//	idgen.clock.drift              gauge (observable)    s          how far ahead of the clock IDs are stamped
//	idgen.lease.events             counter               {event}    idgen.lease.event: acquired, acquire_failed, renewed, renew_failed, lost, released
//	idgen.lease.held               updowncounter         {lease}    worker-ID leases held
//	idgen.lease.acquire.duration   histogram             s          successful claims
//	idgen.lease.renew.duration     histogram             s          renewals; idgen.lease.event: renewed, renew_failed, lost
//	idgen.segment.fetch.duration   histogram             s          block reservations; idgen.segment.tag, error.type on failure
//	idgen.segment.ids.reserved     counter               {id}       IDs in the blocks reserved; idgen.segment.tag
//	idgen.segment.ids.buffered     updowncounter (obs.)  {id}       IDs reserved and not handed out; idgen.segment.tag
//	idgen.idem.request.duration    histogram             s          keyed requests; idgen.idem.outcome
//	idgen.consumer.messages        counter               {message}  deliveries; idgen.consumer.outcome, idgen.consumer.redelivered
//
// # Cost on the hot path
//
// A Snowflake is a snowflake.IssuedCounter: generators do not tell it of each ID, and the
// SDK reads each generator's own count (Generator.Issued, which costs the generator nothing
// per ID) through a callback when it collects; the other events are rare (a wait, a
// rollback, a borrowed tick) and record directly. The other adapters record once per event:
// a lease renewal, a block reservation, a request, a delivery.
package idotel
