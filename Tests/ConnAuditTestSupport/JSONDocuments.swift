import Foundation
import Testing

/// `text` as a JSON object; the test fails, quoting the start of the text, when it is not one.
public func jsonObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any], "not a JSON object: \(text.prefix(300))")
}

/// The entry of rule `id` in a JSON report's `rules`.
public func ruleEntry(_ report: String, _ id: String) throws -> [String: Any] {
    let rules = try #require(
        try jsonObject(report)["rules"] as? [[String: Any]], "no rules in: \(report.prefix(300))")
    return try #require(rules.first { $0["id"] as? String == id }, "no rule \(id) in the report")
}

/// Each rule's `status` in a JSON report, by id.
public func ruleStatuses(_ report: String) throws -> [String: String] {
    let rules = try #require(
        try jsonObject(report)["rules"] as? [[String: Any]], "no rules in: \(report.prefix(300))")
    var out: [String: String] = [:]
    for rule in rules {
        out[try #require(rule["id"] as? String)] = rule["status"] as? String
    }
    return out
}
