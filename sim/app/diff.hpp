#pragma once
// `odcnsim diff A B`: two results side by side. diff_fields.cpp compares two JSON documents (run.json,
// summary.json, compare.json, sweep.json) into one JSON document of what differs, diff_text.cpp prints that
// document as aligned text, and cmd_diff.cpp reads the folders. Pure: no file is written.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace odcn::app::diff {

using Json = nlohmann::ordered_json;

/// The leaves of two documents that differ, as a JSON array of {"field", "a", "b"}: the leaf's path
/// ("platform.hash", "jobs[3].placement") and its value on each side, "a" or "b" left out on a side that lacks
/// it. Objects are walked key by key (A's keys in A's order, then B's others), lists of one length element by
/// element, a list or object on one side only element by element; anything else (lists of two lengths, an empty
/// one, an object against a number) is one leaf. Top-level keys in `skip` are left out.
Json differing_fields(const Json& a, const Json& b, const std::vector<std::string>& skip = {});

/// Two summary.json side by side. "metrics": a row {"metric", "a", "b", "ratio", "difference"} for every leaf
/// that is a number or null on each side that has it, equal or not ("a"/"b" left out where missing); ratio is
/// B/A (1 when both are 0; null when only A is 0, or either side is null or missing) and difference B - A (null
/// when either is null or missing). "other": the remaining leaves that differ (policy, search), as
/// differing_fields gives them.
Json metrics(const Json& a, const Json& b);

/// One run against another: {"inputs": run.json's differing fields, "metrics", "other": as metrics() gives them}.
Json run_pair(const Json& run_a, const Json& summary_a, const Json& run_b, const Json& summary_b);

/// The diff document as text: what cmd_diff.cpp prints without --json.
std::string text(const Json& d);

}  // namespace odcn::app::diff
