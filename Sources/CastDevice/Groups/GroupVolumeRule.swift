/// How a speaker group's volume and its members' volumes go together: the one place the
/// rule lives. docs/protocol/groups.md §5.1 leaves the real function open; what is known is
/// that raising a group scales its members (a member at 0 stays at 0:
/// music-assistant/support #1504) and that the group's level is some function of theirs.
///
/// castsim's rule:
/// * **Group level = the highest level of the members online** (the group's own level
///   when none is online). With the maximum, scaling every member by `new / old` makes the
///   loudest member exactly `new`, so the group reports the level the sender set, and no
///   member is ever pushed above 1 and clamped (with a mean, raising a group whose members
///   differ would clamp the loud ones and the group would miss the level it was given).
/// * **SET_VOLUME on the group scales every member**: level × new / old, to a millionth.
///   A member at 0 stays at 0; when the old group level is 0 (every member at 0), all
///   members go to the new level, since there is nothing to scale.
/// * **Mute belongs to the group**: the group endpoint's `muted` is its own flag; it
///   neither mutes the members' own volume nor follows it.
package enum GroupVolumeRule {
    /// The group's level for members at `levels` (`current` when there is none).
    package static func groupLevel(of levels: [Double], current: Double) -> Double {
        levels.max() ?? current
    }

    /// The members' levels after the group went from `old` to `new`, in the order given.
    package static func memberLevels(_ levels: [Double], from old: Double, to new: Double) -> [Double] {
        let new = new.clamped(to: 0...1)
        guard old > 0 else { return levels.map { _ in new } }
        return levels.map { level in
            // The loudest member lands on `new` exactly, not on a rounding of it: the group
            // level recomputed from the members must be the level the sender set.
            level >= old ? new : rounded((level * new / old).clamped(to: 0...1))
        }
    }

    /// To a millionth: senders are shown 0.2, not 0.20000000000000004, and a level scaled
    /// down and up again comes back to where it was.
    private static func rounded(_ level: Double) -> Double { (level * 1_000_000).rounded() / 1_000_000 }
}
