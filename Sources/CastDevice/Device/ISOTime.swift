/// Wall-clock times in ISO 8601: read as scenario files and recordings write them (a date,
/// a time to the second, optional fractional seconds and `Z` or an offset), written as
/// JavaScript does. Read by hand so every platform reads the same text the same way.
package enum ISOTime {
    /// Milliseconds since 1970 for `2026-05-01T18:00:00Z` or `2026-05-01T20:00:00.250+02:00`;
    /// nil for anything else (fractions finer than a millisecond are cut).
    package static func milliseconds(_ text: String) -> Int64? {
        var scanner = DigitScanner(bytes: Array(text.utf8))
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip("T"), let hour = scanner.number(2), scanner.skip(":"),
              let minute = scanner.number(2), scanner.skip(":"), let second = scanner.number(2) else { return nil }
        var milliseconds = 0
        if scanner.skip(".") {
            guard let fraction = scanner.fraction() else { return nil }
            milliseconds = fraction
        }
        var offset = 0
        if !scanner.skip("Z") {
            let sign = scanner.skip("+") ? 1 : scanner.skip("-") ? -1 : 0
            guard sign != 0, let hours = scanner.number(2), scanner.skip(":"), let minutes = scanner.number(2),
                  hours <= 23, minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd, (1...12).contains(month), (1...daysIn(month, of: year)).contains(day),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        let seconds = Int64(daysSince1970(year: year, month: month, day: day)) * 86400
            + Int64(hour * 3600 + minute * 60 + second - offset)
        return seconds * 1000 + Int64(milliseconds)
    }

    /// `2026-05-01T18:00:00.250Z` for milliseconds since 1970, as JavaScript's
    /// `Date.toISOString` writes it (UTC, always with milliseconds): the inverse of
    /// ``milliseconds(_:)``. Apps' events and recordings write their times so.
    package static func text(milliseconds total: Int64) -> String {
        String(unsafeUninitializedCapacity: longest) { write(milliseconds: total, into: $0) }
    }

    /// Appends ``text(milliseconds:)``'s bytes, as a JSON string (in quotes): a recording
    /// writes one on every line, and a String for each was a fifth of the line's cost.
    package static func appendJSON(milliseconds total: Int64, to output: inout [UInt8]) {
        var scratch: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes, no allocation
        withUnsafeMutableBytes(of: &scratch) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            bytes[0] = UInt8(ascii: "\"")
            let count = write(milliseconds: total, into: UnsafeMutableBufferPointer(rebasing: bytes[1...]))
            bytes[count + 1] = UInt8(ascii: "\"")
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[...(count + 1)]))
        }
    }

    /// The most bytes a time takes: a year beyond 9999 is written with a sign and six digits.
    private static let longest = 27

    /// Writes the time digit by digit into `bytes` (at least ``longest``); returns the count.
    private static func write(milliseconds total: Int64, into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
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
        var count = 0
        func put(_ byte: UInt8) {
            bytes[count] = byte
            count += 1
        }
        // Right to left by tens: a division by a constant is a multiplication, one by a
        // divisor worked out at run time is not (each line of a recording has a time).
        func digits(_ value: Int64, _ width: Int) {
            var value = value
            count += width
            var index = count
            repeat {
                index -= 1
                bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while index > count - width
        }
        // As JavaScript's toISOString writes a year: four digits within 0...9999, else a
        // sign and six digits (the saturated ends are +275760 and -271821).
        if !(0...9999).contains(year) {
            put(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            digits(abs(year), 6)
        } else {
            digits(year, 4)
        }
        func field(_ separator: Unicode.Scalar, _ value: Int64, _ width: Int = 2) {
            put(UInt8(ascii: separator))
            digits(value, width)
        }
        field("-", month)
        field("-", day)
        field("T", inDay / 3_600_000)
        field(":", inDay / 60000 % 60)
        field(":", inDay / 1000 % 60)
        field(".", inDay % 1000, 3)
        put(UInt8(ascii: "Z"))
        return count
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm; years 0...9999 here).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct DigitScanner {
        let bytes: [UInt8]
        var index = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        /// Exactly `digits` decimal digits.
        mutating func number(_ digits: Int) -> Int? {
            guard bytes.count - index >= digits else { return nil }
            var value = 0
            for byte in bytes[index..<index + digits] {
                guard let digit = Self.digit(byte) else { return nil }
                value = value * 10 + digit
            }
            index += digits
            return value
        }

        /// One or more digits after the decimal point, as whole milliseconds.
        mutating func fraction() -> Int? {
            var milliseconds = 0
            var count = 0
            while index < bytes.count, let digit = Self.digit(bytes[index]) {
                if count < 3 { milliseconds = milliseconds * 10 + digit }
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
            for _ in count..<max(count, 3) { milliseconds *= 10 }
            return milliseconds
        }

        private static func digit(_ byte: UInt8) -> Int? {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
        }
    }
}
