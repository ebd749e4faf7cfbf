#if Server
/// HTTP's dates (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), for `Last-Modified`
/// and `If-Modified-Since`: made and read with the proleptic Gregorian calendar in UTC, needing
/// no locale and no time zone of the system.
enum HTTPDate {
    private static let days = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1 Jan 1970 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The date of `seconds` since 1970 (UTC).
    static func format(_ seconds: Int) -> String {
        let day = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - day * 86_400
        let (year, month, dayOfMonth) = civil(fromDays: day)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = days[((day % 7) + 7) % 7]
        return
            "\(weekday), \(two(dayOfMonth)) \(months[month - 1]) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// The seconds since 1970 of an IMF-fixdate, or nil for anything else (the obsolete forms are
    /// not read: a cache then simply gets the whole answer).
    static func parse(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            let dayOfMonth = Int(parts[1]), let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]),
            (1...31).contains(dayOfMonth), (1970...9999).contains(year)
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second)
        else { return nil }
        return days(fromCivil: year, month + 1, dayOfMonth) * 86_400 + hour * 3600 + minute * 60 + second
    }

    /// Year, month (1…12) and day (1…31) of a day number (0 = 1 January 1970).
    private static func civil(fromDays z: Int) -> (Int, Int, Int) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The day number of a date (the inverse of ``civil(fromDays:)``).
    private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
#endif
