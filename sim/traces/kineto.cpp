#include "traces/kineto.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <streambuf>
#include <unordered_set>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "core/numbers.hpp"
#include "core/text.hpp"
#include "spec/field_path.hpp"
#include "spec/json_reader.hpp"
#include "spec/yaml_reader.hpp"

#include "traces/kineto_internal.hpp"

namespace odcn::workload {

using kineto_internal::parse_impl;

KinetoTrace parse_kineto(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_impl(bytes, file, options, false);
}

KinetoTrace read_kineto(const std::string& path, const KinetoOptions& options) {
  return parse_kineto(spec::read_input_file(path), path, options);
}

RankTrace parse_kineto_rank(const std::string& bytes, const std::string& file, const KinetoOptions& options) {
  return parse_kineto(bytes, file, options).trace;
}

RankTrace read_kineto_rank(const std::string& path, const KinetoOptions& options) {
  return read_kineto(path, options).trace;
}

JobGraph import_kineto(const std::vector<std::string>& files, const KinetoOptions& options) {
  if (files.empty()) throw InputError("(kineto)", "files", "no trace file given");
  const std::string& first = files.front();
  if (options.iterations < 1 || options.iterations > limits::kMaxIterations)
    throw InputError(first, "iterations", fmt::format("must be between 1 and {}", limits::kMaxIterations));
  AssembleOptions assemble;
  assemble.name = options.name.empty() ? job_name_of_file(first, {".gz", ".json", ".pt.trace"}, "kineto") : options.name;
  assemble.name = spec::checked_name(assemble.name, first, "name");
  assemble.iterations = options.iterations;

  // Every file at the same step: the one asked for, or the one chosen for the first file (or every file
  // whole when the first has no step annotations).
  KinetoOptions each = options;
  bool whole = false;
  long comms = 0, by_kernel = 0, skipped = 0;
  std::vector<RankTrace> traces;
  std::map<int, std::string> file_of_rank;
  for (std::size_t i = 0; i < files.size(); ++i) {
    KinetoTrace t = parse_impl(spec::read_input_file(files[i]), files[i], each, whole);
    if (i == 0) {
      assemble.ranks = t.world_size;
      if (!each.step) {
        each.step = t.step;
        whole = !t.step;
      }
    } else if (t.world_size != assemble.ranks) {
      throw InputError(files[i], "distributedInfo.world_size",
                       fmt::format("is {} here but {} in {}", t.world_size, assemble.ranks, first));
    }
    if (const auto it = file_of_rank.find(t.trace.rank); it != file_of_rank.end())
      throw InputError(files[i], "distributedInfo.rank",
                       fmt::format("rank {} is also traced by {}", t.trace.rank, it->second));
    file_of_rank.emplace(t.trace.rank, files[i]);
    comms += t.collectives + t.messages;
    by_kernel += t.timed_by_kernel;
    skipped += t.skipped;
    traces.push_back(std::move(t.trace));
  }
  if (options.replicate) traces = replicate_ranks(traces, assemble.ranks);
  JobGraph g = assemble_job_graph(traces, assemble);
  // The fallbacks, one line each with its count, before the assembler's own.
  std::vector<std::string> notes;
  const auto plural = [](long n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  if (whole)
    notes.push_back(fmt::format("{} without a ProfilerStep annotation: each imported whole, from its first event "
                                "to its last",
                                files.size() == 1 ? std::string("the file is") : fmt::format("all {} files are", files.size())));
  if (comms > by_kernel)
    notes.push_back(fmt::format("{} of {} timed by {} CPU operation (no NCCL kernel with {} External id)",
                                comms - by_kernel, plural(comms, "communication"), comms - by_kernel == 1 ? "its" : "their",
                                comms - by_kernel == 1 ? "its" : "their"));
  if (skipped > 0)
    notes.push_back(fmt::format("{} skipped: wait, barrier or zero bytes", plural(skipped, "record_param_comms event")));
  if (options.replicate && static_cast<int>(files.size()) < assemble.ranks)
    notes.push_back(fmt::format("{} of {} ranks are copies of {} (--replicate)", assemble.ranks - static_cast<int>(files.size()),
                                assemble.ranks, first));
  notes.insert(notes.end(), g.notes.begin(), g.notes.end());
  g.notes = std::move(notes);
  return g;
}

}  // namespace odcn::workload
