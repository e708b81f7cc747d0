// Package segmenttest is the conformance suite of segment.Store: what every store keeps,
// checked against a store of yours. runtime/segment's SQL store and
// plugins/redis/redissegment run it on every database they support; a Store for another
// database passes it before an Allocator draws from it.
//
//	func TestStore(t *testing.T) {
//		segmenttest.Run(t, func(t *testing.T) segment.Store {
//			return newStore(t) // an empty table or key prefix of its own
//		})
//	}
package segmenttest
