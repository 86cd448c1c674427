internal import GRDB

/// The history's schema, as migrations: each one runs once per database, in order, and is never edited
/// after release (a change is a new migration).
extension CallHistory {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.create(table: "calls") { table in
        table.column("id", .text).notNull()
        table.column("received_at", .datetime).notNull()
        table.column("caller", .text)
        table.column("name", .text)
        table.column("level", .text).notNull()
        table.column("pattern_hint", .text)
        table.column("sent_at", .datetime)
        table.column("rang_at", .datetime)
        table.column("ended_at", .datetime)
        table.column("outcome", .text).notNull()
        table.column("reason", .text)
        table.column("boards", .text).notNull().defaults(to: "[]")  // a JSON array of board names
        table.column("pattern", .text)
        table.column("missed", .boolean).notNull().defaults(to: false)
        table.column("acknowledged", .boolean).notNull().defaults(to: false)
        table.column("acknowledged_at", .datetime)
        table.primaryKey(["id", "received_at"])
      }
      try db.create(index: "calls_by_time", on: "calls", columns: ["received_at"])
      try db.create(index: "calls_by_missed", on: "calls", columns: ["missed", "acknowledged"])
    }
    // A history of a million calls: `history --missed` sorted every missed call for the newest (a second), and
    // closing the calls left ringing read every row (a third of a second at each start and stop).
    migrator.registerMigration("v2: missed calls by time, ringing calls") { db in
      try db.create(index: "calls_missed_by_time", on: "calls", columns: ["missed", "received_at"])
      try db.execute(sql: "CREATE INDEX calls_ringing ON calls (outcome) WHERE outcome = 'ringing'")
    }
    return migrator
  }
}
