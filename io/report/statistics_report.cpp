#include "io/report/statistics_report.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "io/base/atomic_file.h"

namespace delineate::io {

namespace {

std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += (c == '"') ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  if (!std::isfinite(v)) return {};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string colourHex(const core::LabelTable& table, core::Label id) {
  const core::LabelEntry* e = table.find(id);
  const core::Rgba c = e ? e->color : core::LabelTable::defaultColor(id);
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

std::string code(const core::LabelTable& table, core::Label id) {
  const core::LabelEntry* e = table.find(id);
  if (!e || e->terminology.type.empty()) return {};
  return e->terminology.type.scheme + ":" + e->terminology.type.value;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string labelDisplayName(const core::LabelTable& table, core::Label id) {
  const core::LabelEntry* e = table.find(id);
  return e ? e->name : "label " + std::to_string(id);
}

std::string statisticsCsv(const std::vector<core::LabelStatistics>& stats, const core::LabelTable& table) {
  std::string out =
      "label,name,voxels,volume_ml,mean,std,min,max,median,longest_diameter_mm,centroid_l_mm,centroid_p_mm,"
      "centroid_s_mm,i_min,i_max,j_min,j_max,k_min,k_max,colour,code\n";
  for (const core::LabelStatistics& st : stats) {
    out += std::to_string(st.label) + "," + csvField(labelDisplayName(table, st.label)) + "," +
           std::to_string(st.voxelCount) + "," + number(st.volumeMl) + "," + number(st.mean) + "," +
           number(st.stddev) + "," + number(st.min) + "," + number(st.max) + "," + number(st.median) + "," +
           number(st.longestDiameterMm) + "," + number(st.centroidLps[0]) + "," + number(st.centroidLps[1]) + "," +
           number(st.centroidLps[2]);
    for (int a = 0; a < 3; ++a)
      out += "," + std::to_string(st.box.min[static_cast<std::size_t>(a)]) + "," +
             std::to_string(st.box.max[static_cast<std::size_t>(a)]);
    out += "," + colourHex(table, st.label) + "," + csvField(code(table, st.label)) + "\n";
  }
  return out;
}

std::string statisticsJson(const std::vector<core::LabelStatistics>& stats, const core::LabelTable& table,
                           const StatisticsReportInfo& info) {
  nlohmann::json j;
  if (!info.deidentified) {
    if (!info.image.empty()) j["image"] = info.image;
    if (!info.labelSource.empty()) j["label_source"] = info.labelSource;
  }
  j["deidentified"] = info.deidentified;
  if (!info.intensityUnit.empty()) j["intensity_unit"] = info.intensityUnit;
  if (info.geometry) {
    const core::Geometry& g = *info.geometry;
    j["geometry"] = {{"dimensions", g.dimensions()},
                     {"spacing_mm", g.spacingMm()},
                     {"origin_lps_mm", g.originLps()},
                     {"direction", g.direction().m}};
  }
  if (info.slices)
    j["slices"] = {{"axis", info.slices->axis}, {"first", info.slices->first}, {"last", info.slices->last}};
  auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  nlohmann::json list = nlohmann::json::array();
  for (const core::LabelStatistics& st : stats) {
    nlohmann::json e = {{"label", st.label},
                        {"name", labelDisplayName(table, st.label)},
                        {"voxels", st.voxelCount},
                        {"volume_ml", st.volumeMl},
                        {"mean", num(st.mean)},
                        {"std", num(st.stddev)},
                        {"min", num(st.min)},
                        {"max", num(st.max)},
                        {"median", num(st.median)},
                        {"longest_diameter_mm", st.longestDiameterMm},
                        {"centroid_lps_mm", st.centroidLps},
                        {"bbox_ijk", {st.box.min, st.box.max}},
                        {"colour", colourHex(table, st.label)}};
    if (const std::string c = code(table, st.label); !c.empty()) e["code"] = c;
    list.push_back(e);
  }
  j["labels"] = list;
  // Names are bytes, not necessarily UTF-8 (Latin-1 tables exist): replace what JSON cannot hold rather than abort.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

core::Status writeStatisticsFile(const std::string& path, const std::vector<core::LabelStatistics>& stats,
                                 const core::LabelTable& table, const StatisticsReportInfo& info) {
  std::string text;
  if (endsWith(path, ".csv")) text = statisticsCsv(stats, table);
  else if (endsWith(path, ".json")) text = statisticsJson(stats, table, info);
  else return core::makeError(core::ErrorCode::InvalidArgument, path, "statistics are written as .csv or .json");
  return writeFileAtomically(path, text.data(), text.size());
}

}  // namespace delineate::io
