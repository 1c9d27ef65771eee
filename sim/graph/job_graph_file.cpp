#include "graph/job_graph_file.hpp"

#include <fmt/format.h>

#include <fstream>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/text.hpp"
#include "spec/json_reader.hpp"
#include "spec/yaml_reader.hpp"

namespace odcn::workload {

namespace {

using spec::JsonMap;
using spec::JsonValue;

TaskKind parse_kind(const std::string& s, const std::string& file, const std::string& field) {
  for (auto k : {TaskKind::compute, TaskKind::transfer, TaskKind::collective, TaskKind::barrier})
    if (s == to_string(k)) return k;
  throw InputError(file, field,
                   fmt::format("unknown task kind '{}' (expected compute, transfer, collective or barrier)", shown(s)));
}

/// The head of the file: everything but the tasks (on a partial root too, with `partial`: then false when a key
/// the tasks need has not been read yet, and true once every head key given so far is valid).
bool read_head(const JsonValue& doc, const std::string& file, JobGraph& g, bool partial = false) {
  using namespace limits;
  const JsonMap root(doc, file, "");
  if (partial && !(root.has("format") && root.has("version") && root.has("name") && root.has("ranks"))) return false;
  root.allow_only({"format", "version", "generated_by", "name", "ranks", "iterations", "arrival_s", "tasks"});
  if (root.has("generated_by")) root.text("generated_by");  // which command wrote it: read, checked, not used
  if (root.text("format") != kJobGraphFormat)
    throw InputError(file, "format", fmt::format("must be \"{}\" (got \"{}\")", kJobGraphFormat, shown(root.text("format"))));
  const auto version = root.integer("version", 1, 1'000'000);
  if (version != kJobGraphVersion)
    throw InputError(file, "version",
                     fmt::format("this odcnsim reads job-graph version {}; the file is version {} (written by a newer "
                                 "odcnsim?)",
                                 kJobGraphVersion, version));
  g.name = spec::checked_name(root.text("name"), file, "name");
  g.ranks = static_cast<int>(root.integer("ranks", 1, kMaxTotalGpus));
  g.iterations = root.has("iterations") ? static_cast<int>(root.integer("iterations", 1, kMaxIterations)) : 1;
  g.arrival_s = root.has("arrival_s") ? root.real("arrival_s", 0, kMaxSeconds) : 0.0;
  return true;
}

/// Reads tasks one at a time, in file order; dependencies name tasks by id, which may come later in the list,
/// so they are resolved once all are read.
class TaskReader {
 public:
  TaskReader(const std::string& file, JobGraph& g) : file_(file), g_(g) {}
  void read(const JsonValue& v, std::size_t i);
  void resolve();
  std::size_t count() const { return g_.tasks.size(); }

 private:
  const std::string& file_;
  JobGraph& g_;
  std::unordered_map<std::string, int> index_of_;
  std::vector<std::string> dep_names_;        ///< every task's dependencies, in order
  std::vector<std::size_t> dep_start_{0};     ///< task i's are dep_names_[dep_start_[i], dep_start_[i + 1])
};

void TaskReader::read(const JsonValue& v, std::size_t i) {
  using namespace limits;
  const std::string& file = file_;
  const JsonMap t(v, file, fmt::format("tasks[{}]", i));
  Task task;
  task.name = t.named_at("id", [&](const std::string& f) { return spec::checked_name(t.text("id"), file, f); });
  if (!index_of_.emplace(task.name, static_cast<int>(i)).second)
    throw InputError(file, t.field("id"), fmt::format("'{}' is the id of an earlier task", shown(task.name)));
  task.kind = t.named_at("kind", [&](const std::string& f) { return parse_kind(t.text("kind"), file, f); });
  const int last_rank = g_.ranks - 1;
  switch (task.kind) {
    case TaskKind::compute:
      t.allow_only({"id", "kind", "deps", "rank", "duration_s"});
      task.rank = static_cast<int>(t.integer("rank", 0, last_rank));
      task.duration_s = t.real("duration_s", kMinSeconds, kMaxSeconds);
      break;
    case TaskKind::transfer:
      t.allow_only({"id", "kind", "deps", "src", "dst", "bytes"});
      task.src = static_cast<int>(t.integer("src", 0, last_rank));
      task.dst = static_cast<int>(t.integer("dst", 0, last_rank));
      task.bytes = t.real("bytes", 1, kMaxBytes);
      break;
    case TaskKind::collective: {
      t.allow_only({"id", "kind", "deps", "op", "algorithm", "group", "bytes", "root"});
      if (!parse_collective_op(t.text("op"), task.op))
        throw InputError(file, t.field("op"),
                         fmt::format("unknown operation '{}' (expected all-reduce, reduce-scatter, all-gather, "
                                     "all-to-all, broadcast, ps-push, ps-pull or send-recv)",
                                     shown(t.text("op"))));
      if (!parse_collective_algorithm(t.text("algorithm"), task.algorithm))
        throw InputError(file, t.field("algorithm"),
                         fmt::format("unknown algorithm '{}' (expected ring, direct or parameter-server)",
                                     shown(t.text("algorithm"))));
      const auto& group = t.array("group");
      task.group.reserve(group.size());
      for (std::size_t k = 0; k < group.size(); ++k)
        task.group.push_back(static_cast<int>(
            spec::json_integer(group[k], file, [&] { return fmt::format("{}[{}]", t.field("group"), k); }, 0, last_rank)));
      task.bytes = t.real("bytes", 1, kMaxBytes);
      if (t.has("root"))
        task.root = static_cast<int>(t.integer("root", 0, static_cast<std::int64_t>(group.size()) - 1));
      break;
    }
    case TaskKind::barrier: t.allow_only({"id", "kind", "deps"}); break;
  }
  if (t.has("deps")) {  // (resolved once every id is known)
    const auto& deps = t.array("deps");
    for (std::size_t k = 0; k < deps.size(); ++k)
      dep_names_.push_back(spec::json_text(deps[k], file, [&] { return fmt::format("{}[{}]", t.field("deps"), k); }));
  }
  dep_start_.push_back(dep_names_.size());
  g_.tasks.push_back(std::move(task));
}

void TaskReader::resolve() {
  for (std::size_t i = 0; i < g_.tasks.size(); ++i) {
    auto& deps = g_.tasks[i].deps;
    deps.reserve(dep_start_[i + 1] - dep_start_[i]);
    for (std::size_t k = dep_start_[i]; k < dep_start_[i + 1]; ++k) {
      const auto it = index_of_.find(dep_names_[k]);
      if (it == index_of_.end())
        throw InputError(file_, fmt::format("tasks[{}].deps[{}]", i, k - dep_start_[i]),
                         fmt::format("no task has the id '{}'", shown(dep_names_[k])));
      deps.push_back(it->second);
    }
  }
}

}  // namespace

JobGraph parse_job_graph(const std::string& text, const std::string& file) {
  JobGraph g;
  TaskReader tasks(file, g);
  // Each task is read as soon as it is parsed, once the head it needs (format, version, name, ranks) is read
  // and valid, as odcnsim writes it: the whole document is never held (a 405B job graph: 78,081 tasks).
  // A file whose head comes after its tasks is read whole first.
  bool head = false;
  const JsonValue doc = spec::parse_json(text, file, {"tasks", [&](const JsonValue& v, std::size_t i, const JsonValue& root) {
                                                        if (!head && !(head = read_head(root, file, g, true))) return false;
                                                        tasks.read(v, i);
                                                        return true;
                                                      }});
  read_head(doc, file, g);
  const auto& rest = JsonMap(doc, file, "").array("tasks");
  for (std::size_t k = 0; k < rest.size(); ++k) tasks.read(rest[k], tasks.count());
  if (tasks.count() == 0) throw InputError(file, "tasks", "must be a non-empty list");
  tasks.resolve();
  validate(g, file, "");
  return g;
}

std::string job_graph_json(const JobGraph& g, const std::string& generated_by) {
  using Json = nlohmann::ordered_json;
  Json tasks = Json::array();
  for (const auto& t : g.tasks) {
    Json j = {{"id", t.name}, {"kind", to_string(t.kind)}};
    switch (t.kind) {
      case TaskKind::compute:
        j["rank"] = t.rank;
        j["duration_s"] = t.duration_s;
        break;
      case TaskKind::transfer:
        j["src"] = t.src;
        j["dst"] = t.dst;
        j["bytes"] = t.bytes;
        break;
      case TaskKind::collective:
        j["op"] = to_string(t.op);
        j["algorithm"] = to_string(t.algorithm);
        j["group"] = t.group;
        j["bytes"] = t.bytes;
        if (t.root != 0) j["root"] = t.root;
        break;
      case TaskKind::barrier: break;
    }
    if (!t.deps.empty()) {
      Json deps = Json::array();
      for (int d : t.deps) deps.push_back(g.tasks[static_cast<std::size_t>(d)].name);
      j["deps"] = deps;
    }
    tasks.push_back(std::move(j));
  }
  Json doc = {{"format", kJobGraphFormat}, {"version", kJobGraphVersion}};
  if (!generated_by.empty()) doc["generated_by"] = generated_by;
  doc["name"] = g.name;
  doc["ranks"] = g.ranks;
  doc["iterations"] = g.iterations;
  if (g.arrival_s != 0) doc["arrival_s"] = g.arrival_s;
  doc["tasks"] = std::move(tasks);
  // One task per line: readable, and diff-friendly.
  std::string out = "{\n";
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (it.key() == "tasks") continue;
    out += "  " + Json(it.key()).dump() + ": " + it.value().dump() + ",\n";
  }
  out += "  \"tasks\": [\n";
  const auto& list = doc["tasks"];
  for (std::size_t i = 0; i < list.size(); ++i) out += "    " + list[i].dump() + (i + 1 < list.size() ? ",\n" : "\n");
  out += "  ]\n}\n";
  return out;
}

JobGraph load_job_graph(const std::string& path) { return parse_job_graph(spec::read_input_file(path), path); }

bool written_by_odcnsim(const std::string& path, const std::string& command) {
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format", "") != kJobGraphFormat) return false;
  const auto by = doc.find("generated_by");
  return by != doc.end() && by->is_string() && by->get<std::string>() == command;
}

}  // namespace odcn::workload
