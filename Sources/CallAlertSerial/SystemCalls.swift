#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The current thread's errno, and its text.
struct SystemError {
  let number: CInt

  static var current: SystemError { SystemError(number: errno) }

  var message: String { String(cString: strerror(number)) }
}

/// open(2), under a name that does not collide with the `open` functions of this module's types.
@inline(__always)
func systemOpen(_ path: String, _ flags: CInt) -> CInt {
  #if canImport(Glibc)
    Glibc.open(path, flags)
  #elseif canImport(Musl)
    Musl.open(path, flags)
  #else
    Darwin.open(path, flags)
  #endif
}

/// close(2) of a descriptor not yet handed to a `FileDescriptor` owner; errors are not reported (on Linux the
/// descriptor is released even when close(2) fails, so retrying could close an unrelated one).
@inline(__always)
func systemClose(_ descriptor: CInt) {
  #if canImport(Glibc)
    _ = Glibc.close(descriptor)
  #elseif canImport(Musl)
    _ = Musl.close(descriptor)
  #else
    _ = Darwin.close(descriptor)
  #endif
}

/// The canonical path of `path` with every symbolic link resolved, or nil when it cannot be resolved.
///
/// The corresponding C function is `realpath`.
func resolvedPath(_ path: String) -> String? {
  guard let resolved = realpath(path, nil) else { return nil }
  defer { free(resolved) }
  return String(cString: resolved)
}
