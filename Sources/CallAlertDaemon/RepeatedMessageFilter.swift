/// Lets a message that repeats (a missing board's "not available", every retry) through once, and again
/// only when it changes, so a board left unplugged logs one line, not one every 5 s, and a different
/// reason (plugged in but unreadable) is still reported.
struct RepeatedMessageFilter: Sendable {
  private var last: String?

  /// Whether `message` differs from the one before (the first one always does).
  mutating func isNew(_ message: String) -> Bool {
    defer { last = message }
    return message != last
  }

  /// Forgets the last message: the next one is new again (after the condition cleared).
  mutating func reset() { last = nil }
}
