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
//
// LeafBlock and TinyidBlock are the other side of a switch from Meituan Leaf or didi
// tinyid: their block allocation by their published statements, on tables LeafDDL and
// TinyidDDL create, for a test that runs the old service beside idgen's segment.NewLeaf
// and segment.NewTinyid stores on the same rows.
package segmenttest
