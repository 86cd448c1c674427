/// A map from ids to moments (monotonic ms) that finds and drops its smallest moments in O(log n): the
/// engine's memory of finished calls, tombstones and arrivals is looked at on every input, and a scan of it
/// would make each line cost more the more calls came in during the last minutes.
///
/// Reads and writes look like a dictionary's; a min-heap beside it orders the moments written. An entry
/// overwritten or removed leaves its old heap node behind, dropped when it reaches the top.
struct TimedMap: Sendable {
  /// The entries.
  private(set) var values: [String: UInt64] = [:]
  /// Every moment written, smallest first at index 0 (a binary heap); some may be stale.
  private var heap: [(ms: UInt64, key: String)] = []

  /// The moment stored for `key`.
  subscript(key: String) -> UInt64? {
    get { values[key] }
    set {
      values[key] = newValue
      if let newValue { push((newValue, key)) }
      dropStaleTop()
    }
  }

  /// Removes `key`; returns its moment.
  @discardableResult
  mutating func removeValue(forKey key: String) -> UInt64? {
    defer { dropStaleTop() }
    return values.removeValue(forKey: key)
  }

  /// Removes every entry.
  mutating func removeAll() {
    values.removeAll()
    heap.removeAll()
  }

  /// The number of entries.
  var count: Int { values.count }

  /// The smallest moment stored; nil when empty. O(1).
  var smallest: UInt64? { heap.first?.ms }

  /// Removes the entries whose moment `isExpired` says is over, smallest first, stopping at the first that
  /// is not (`isExpired` must hold for every moment below one it holds for).
  mutating func removeExpired(_ isExpired: (UInt64) -> Bool) {
    while let top = heap.first, isExpired(top.ms) {
      popTop()
      if values[top.key] == top.ms { values[top.key] = nil }
      dropStaleTop()
    }
  }

  /// Pops nodes at the top that no longer match their entry, so ``smallest`` is exact.
  private mutating func dropStaleTop() {
    while let top = heap.first, values[top.key] != top.ms { popTop() }
  }

  private mutating func push(_ node: (ms: UInt64, key: String)) {
    heap.append(node)
    var child = heap.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard heap[child].ms < heap[parent].ms else { break }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func popTop() {
    heap.swapAt(0, heap.count - 1)
    heap.removeLast()
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < heap.count, heap[left].ms < heap[smallest].ms { smallest = left }
      if right < heap.count, heap[right].ms < heap[smallest].ms { smallest = right }
      guard smallest != parent else { return }
      heap.swapAt(parent, smallest)
      parent = smallest
    }
  }
}

extension TimedMap: Equatable {
  /// Equal when the entries are; the heap is bookkeeping.
  static func == (lhs: TimedMap, rhs: TimedMap) -> Bool { lhs.values == rhs.values }
}
