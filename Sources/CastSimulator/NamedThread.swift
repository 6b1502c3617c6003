import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of castsim's own, under a name `top -H`, `ps -L` and perf show.
///
/// On Linux, Foundation's `Thread.name` set before `start()` names only the Foundation
/// object: the kernel's name stays the one of the thread that started it (a recorder's writer
/// showed as `oot.default-qos`, a Dispatch worker's name cut to 15 bytes). So the thread
/// names itself first.
package enum NamedThread {
    /// Starts `body` on a new thread named `name` (at most 15 bytes: Linux's limit); returns
    /// once the thread runs under that name.
    package static func start(_ name: StaticString, _ body: @escaping @Sendable () -> Void) {
        precondition(name.utf8CodeUnitCount <= 15, "Linux keeps 15 bytes of a thread's name")
        let named = DispatchSemaphore(value: 0)
        let thread = Thread {
            nameCurrentThread(name)
            named.signal()
            body()
        }
        thread.name = name.description
        thread.start()
        named.wait()
    }

    /// Glibc's module leaves out `pthread_setname_np` (a GNU extension), and `prctl` is
    /// variadic: the kernel's own file for the calling thread's name takes it instead.
    private static func nameCurrentThread(_ name: StaticString) {
        #if os(Linux)
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }  // no /proc: the thread keeps the name it had
        _ = name.withUTF8Buffer { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        #elseif canImport(Darwin)
        _ = pthread_setname_np(name.description)
        #endif
    }
}
