/// Why a ``DaemonRig`` could not start or stop.
public enum DaemonRigError: Error, Equatable {
  /// Neither a folder nor a config file was given, so the rig has no folder for the daemon.
  case noFolder
  /// A daemon on a test clock did not stop within its limit of virtual time.
  case notStopped
}
