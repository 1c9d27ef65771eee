#pragma once
// The key table: every key of every input document (the four platform kinds and the three workload kinds), with
// its type, unit, accepted range, default and meaning. The readers take their allowed keys, ranges, word lists
// and defaults from here (spec/yaml_reader.hpp: YamlMap with a Schema), and `odcnsim show --list-keys` prints
// this table, so the listing cannot drift from what the readers accept. A reader that touches a key not in its
// table is an odcnsim bug (std::logic_error), which every reader test would hit.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace odcn::spec {

enum class KeyType {
  integer,   ///< a whole number in [lo, hi]
  real,      ///< a finite number in [lo, hi]
  positive,  ///< a finite number in (0, hi]
  text,      ///< a string (a name, a file)
  word,      ///< one of `words`
  boolean,   ///< true or false
  list,      ///< a list, read by its own rule (`help` says which)
  mapping,   ///< a mapping with keys of the user's (pod: GPUs, workers: weight), read by its own rule
};
const char* to_string(KeyType t);

struct Key {
  std::string path;  ///< "ocs.port_gbps"; "jobs[].type" for a key of every element of the list jobs
  KeyType type = KeyType::text;
  std::string unit;  ///< "Gb/s", "us", "" for none
  double lo = 0, hi = 0;
  std::vector<std::string> words;  ///< KeyType::word (and lists of words): the accepted values
  /// The value when the key is absent, as a file would give it ("half", "4"); "" when the key is required, or
  /// "(...)" when it is a rule rather than a value ("(the file's path)"). Readers take a value default from here.
  std::string fallback;
  /// For a default that depends on the rest of the document (the compute model's), the value it takes there.
  std::function<std::string(const YAML::Node& root)> fallback_in;
  std::string help;

  bool required() const { return fallback.empty() && !fallback_in; }
  /// The accepted range as text: "1 to 65536", "> 0 to 1e+06", "full | half", "" for none.
  std::string range() const;
  /// The default in this document (fallback_in if any, else fallback).
  std::string default_in(const YAML::Node& root) const;
};

/// A key of a table, as the tables write it (key_tables*.cpp).
Key make_key(KeyType type, std::string path, std::string unit, double lo, double hi, std::string fallback,
             std::string help, std::vector<std::string> words = {});

/// The keys of one kind of document.
class Schema {
 public:
  /// `defaulted`: optional sections whose keys take their defaults when the section is absent (a TDM-4
  /// workload's training); the keys of any other absent section are not used.
  Schema(std::string name, std::string title, std::vector<Key> keys, std::vector<std::string> defaulted = {});
  const std::string& name() const { return name_; }    ///< "clos_ocs", "tdm4-jobs"
  const std::string& title() const { return title_; }  ///< one line: what the document is
  const std::vector<Key>& keys() const { return keys_; }
  /// The key at `path` (in the table's spelling, "jobs[].type"), or nullptr.
  const Key* find(const std::string& path) const;
  /// The key at `path`, or std::logic_error (a reader asked for a key its table lacks).
  const Key& at(const std::string& path) const;
  /// Whether `path` is a key, a section or a list of sections of the table.
  bool knows(const std::string& path) const;
  /// The names directly under `section` ("" for the root): keys and sub-sections, in table order.
  const std::vector<std::string>& children(const std::string& section) const;
  /// Whether `section`'s keys take their defaults when it is absent.
  bool defaulted(const std::string& section) const;

 private:
  std::string name_, title_;
  std::vector<Key> keys_;
  std::vector<std::string> defaulted_;
  std::map<std::string, std::size_t> index_;
  std::map<std::string, std::vector<std::string>> children_;
};

/// The tables (spec/key_tables.cpp).
const Schema& clos_ocs_keys();
const Schema& flat_ocs_keys();
const Schema& photonic_rail_keys();
const Schema& electrical_keys();
const Schema& tdm4_workload_keys();
const Schema& ps_workload_keys();
const Schema& graph_workload_keys();
/// Every table: the platforms first, then the workloads.
const std::vector<const Schema*>& all_schemas();
/// The platform table of a kind (clos_ocs, ...), or nullptr.
const Schema* platform_schema(const std::string& kind);
/// The workload table a parsed workload document is read with.
const Schema& workload_schema(const YAML::Node& doc);

/// A field path of a file ("jobs[3].placement") in the table's spelling ("jobs[].placement").
std::string schema_path(const std::string& field);

}  // namespace odcn::spec
