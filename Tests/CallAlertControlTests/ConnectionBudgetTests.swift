import CallAlertControl
import Testing

/// The connections the control socket and the HTTP API share: each within its own limit, the two together
/// within what the descriptors allow, and the control socket's last places out of the HTTP API's reach.
@Suite struct ConnectionBudgetTests {
  @Test func eachListenerStaysWithinItsOwnLimit() {
    let budget = ConnectionBudget(controlSocket: 4, http: 10, descriptorLimit: 10_000)
    #expect(budget.total == 14)
    #expect((0..<12).filter { _ in budget.take(.http) }.count == 10)
    #expect((0..<6).filter { _ in budget.take(.controlSocket) }.count == 4)
    budget.give(.http)
    #expect(budget.take(.http))
    #expect(budget.inUse(.http) == 10 && budget.inUse(.controlSocket) == 4)
  }

  @Test func scarceDescriptorsAreSharedAndTheControlSocketKeepsItsLastPlaces() {
    // 356 descriptors, 256 of them kept for the rest of the daemon: 100 places for both listeners.
    let budget = ConnectionBudget(controlSocket: 64, http: 256, keptForControlSocket: 16, descriptorLimit: 356)
    #expect(budget.total == 100)
    // A flood of HTTP connections takes 84 and no more.
    #expect((0..<1_000).filter { _ in budget.take(.http) }.count == 84)
    // The control socket still finds its 16.
    #expect((0..<20).filter { _ in budget.take(.controlSocket) }.count == 16)
    #expect(!budget.take(.http))
    // A place the HTTP API gives back is the HTTP API's again, the control socket holding its 16.
    budget.give(.http)
    #expect(budget.take(.http))
    // Places the control socket gives back beyond its kept ones go to whoever asks first.
    for _ in 0..<16 { budget.give(.controlSocket) }
    #expect(budget.inUse(.controlSocket) == 0)
    #expect(!budget.take(.http))  // the 16 are kept again
    #expect(budget.take(.controlSocket))
  }

  @Test func theProcessLimitBoundsTheTotal() {
    let tiny = ConnectionBudget(controlSocket: 64, http: 256, descriptorLimit: 200)
    #expect(tiny.total == 2)
    #expect(tiny.keptForControlSocket == 1)
    #expect(tiny.take(.http))
    #expect(!tiny.take(.http))
    #expect(tiny.take(.controlSocket))
  }
}
