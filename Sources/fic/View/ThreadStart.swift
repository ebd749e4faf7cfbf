#if Tool
import FICCommandLine

extension CLIError {
    /// Runs `start`, which starts a thread of the viewer (FICCore's `WorkerThread`), and says
    /// what could not be started when the system refuses another thread.
    static func starting<T>(_ what: String, _ start: () throws -> T) throws -> T {
        do {
            return try start()
        } catch {
            throw CLIError("cannot start a thread for \(what): \(error)")
        }
    }
}
#endif
