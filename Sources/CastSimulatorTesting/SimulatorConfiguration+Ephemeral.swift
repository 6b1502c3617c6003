import CastSimulator

extension SimulatorConfiguration {
    /// Listens on `host` with every port the system's choice (Cast, and eureka_info on HTTP
    /// and HTTPS): tests and benchmarks that run beside each other never meet on a port.
    public mutating func listenEphemerally(on host: String) {
        self.host = host
        castPort = 0
        httpPort = 0
        httpsPort = 0
    }
}
