/// castsim's version: in recordings' headers and eureka_info's build info.
public enum CastsimVersion {
    public static let current = "0.12.0"
}
