import CCallAlertEpoll

/// accept(2) of a client on `listening`, non-blocking and close-on-exec from the start (accept4): no fcntl
/// calls per client, and no window in which a process forked elsewhere inherits it. The client's descriptor,
/// or -1 with `errno` set (EAGAIN when nobody waits).
public func acceptNonBlockingClient(_ listening: CInt) -> CInt {
  callalert_accept(listening)
}
