/// castsim's version: `castsim --version`, and recordings' headers.
///
/// The one place it is written. Keep it a plain string literal on the one line that
/// declares it: scripts read it from this file, e.g.
/// `sed -n 's/^ *public static let current = "\(.*\)"$/\1/p'`.
public enum CastsimVersion {
    public static let current = "0.12.0"
}
