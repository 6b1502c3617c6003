/// Wall-clock times as JavaScript's `Date.toISOString` writes them: `2026-01-01T12:00:00.000Z`,
/// always UTC with milliseconds. The EMP receiver's events and recordings both write them.
package enum ISOTimeText {
    package static func text(milliseconds total: Int64) -> String {
        var days = total >= 0 ? total / 86_400_000 : (total - 86_399_999) / 86_400_000
        let inDay = total - days * 86_400_000
        // Civil date from days since 1970 (Howard Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        func two(_ value: Int64) -> String { padded(value, 2) }
        // As JavaScript's toISOString writes a year: four digits within 0...9999, else a
        // sign and six digits (the saturated ends are +275760 and -271821).
        let yearText = (0...9999).contains(year) ? padded(year, 4) : (year < 0 ? "-" : "+") + padded(abs(year), 6)
        return "\(yearText)-\(two(month))-\(two(day))T\(two(inDay / 3_600_000)):\(two(inDay / 60000 % 60)):\(two(inDay / 1000 % 60)).\(padded(inDay % 1000, 3))Z"
    }
}
