// Package sqldb holds the rules every SQL store of idgen follows, in one place: the
// dialects they speak ([Dialect]), the table names they accept ([CheckTable]), and the
// creation of their tables when many processes start on a new database at once
// ([CreateTables]). A store written for another purpose beside them (a service's own
// tables) follows the same rules by calling the same functions.
//
// # Table names
//
// The stores splice their table's name into SQL unquoted, so a name is accepted only if it
// cannot be anything but a name, on every database: [CheckTable] takes one or two parts
// separated by a dot ("idgen_lease", "app.idgen_lease": a schema on PostgreSQL, a database
// on MySQL, an attached database on SQLite), each part 1 to [MaxTablePart] bytes of ASCII
// letters, digits and underscores, not starting with a digit. 63 is PostgreSQL's limit (it
// truncates longer names silently, so two long names could name one table); MySQL allows
// 64 and SQLite more. Reserved words ("user", "order") pass the rule and then fail at the
// database with a syntax error: an error, never another statement.
//
// # Creating tables
//
// CREATE TABLE IF NOT EXISTS is not atomic on PostgreSQL: two sessions that both find the
// table missing both insert it into the catalog, and the loser fails with a unique
// violation (23505) on pg_type's or pg_class's name index, or duplicate_table (42P07). MySQL
// may report a deadlock or a lock wait timeout, and SQLite a busy file while a new database
// is set up. [CreateTables] runs each statement again on those errors, a bounded number of
// times, until it succeeds: a statement that succeeds after the other session committed
// is the check that the table exists.
package sqldb
