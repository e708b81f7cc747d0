// Package number writes snowflake IDs as business numbers, such as the order number
// ORD202604081234563309477895: a prefix, the ID's time in a fixed-offset zone and a
// fixed-width run of digits. It is for the numbers people read, type and sort (order,
// transaction and invoice numbers) when the row already has a snowflake ID, or instead of
// one: a number is the ID in another form, so Parse gives the ID back.
//
// # Anatomy
//
// A [Spec] names a prefix, a time layout of numeric fields from the year down to the hour,
// minute or second, a zone, a [snowflake.Layout] and whether to append a check digit;
// [Compile] turns it into a [Format]. For an ID with tick t, worker w and sequence s, let
// R be the time layout's resolution (its smallest field) and U the layout's Unit; then
//
//	instant = Epoch + t*U
//	base    = instant truncated to R on the zone's wall clock   -> the time text
//	sub     = (instant - base) / U                                 in [0, R/U)
//	unique  = (sub*(MaxWorker+1) + w)*(MaxSeq+1) + s               -> fixed-width digits
//
// and the number is prefix, time text, unique zero-padded to the width of its largest
// value, R/U*(MaxWorker+1)*(MaxSeq+1) - 1, and, with Check, a Luhn digit over all digits
// after the prefix. Under [snowflake.Classic] in seconds that largest value is
// 1000*1024*4096 - 1 = 4194303999, ten digits, so "ORD" numbers are 3+14+10 = 27 bytes
// long, 28 with a check digit. Every number of a Format has the same length, [Format.Width].
//
// # Why numbers never collide
//
// The map from IDs to numbers is injective, so two numbers are equal only when their IDs
// are. Take two IDs with equal numbers. Their time texts are equal, and a text written in
// one fixed offset down to R names one R-long interval of absolute time: so both ticks
// have the same base. Their unique parts are equal, and unique is a mixed-radix number
// whose digits sub < R/U, w <= MaxWorker and s <= MaxSeq are each below their radix: so
// sub, w and s are equal. The tick is (base - Epoch)/U + sub, hence equal too, and an ID
// is its tick, worker and sequence. Since the generator issues each ID once, each number
// is issued once, with no coordination beyond what the IDs already have. Parse inverts
// the map and accepts only the image: a string that is not exactly Format's output for
// some ID is an error.
//
// Compile refuses the specs for which that argument fails. The zone must keep one UTC
// offset over the layout's whole lifetime: under daylight saving time the hour after the
// clocks go back is written twice, so two ticks an hour apart would share a time text, and
// the later hour's numbers would sort before the earlier's. The resolution must
// be a fixed duration (an hour at the coarsest: days, months and years vary in length) and a
// whole number of units, and the epoch must start a resolution step in the zone, so sub
// is an exact count of units. A two-digit year is allowed only when the lifetime stays in
// one century, where it names the year as well as four digits do.
//
// # Order
//
// Within one worker, numbers sort as strings in the order the IDs were issued: the time
// text has fixed-width fields from most to least significant, so it sorts like base; the
// unique part has fixed width, so it sorts like its value, which for one worker orders by
// sub and then sequence, that is by tick and then sequence. Across workers numbers sort by
// time to the tick first, then by worker, as IDs of the classic time-worker-sequence order
// do.
//
// # Name
//
// The package is called number, as in order number: its values are strings of digits a
// person can read, while a snowflake.ID is a value for machines.
package number
