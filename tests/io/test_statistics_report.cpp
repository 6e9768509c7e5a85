// Label statistics as CSV and JSON files: what the CLI prints and the window exports.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/statistics.h"
#include "io/report/statistics_report.h"
#include "tests/common/test_support.h"

using namespace delineate;
using delineate::test::ScratchDir;

namespace {

// Two labels on a 20^3 image whose intensity is the x index: a cube (label 3, named with a comma) and a bar (9,
// unnamed), statistics with the image.
struct Fixture {
  core::ImageVolume image = core::ImageVolume::create(core::Geometry({20, 20, 20}, {0.5, 0.5, 2.0}, {10, 20, 30})).value();
  core::LabelMap labels = core::LabelMap::create(image.geometry()).value();
  core::LabelTable table;
  std::vector<core::LabelStatistics> stats;
  Fixture() {
    auto voxels = core::Volume<core::Label>::create(image.geometry(), 0).value();
    for (std::int64_t z = 0; z < 20; ++z)
      for (std::int64_t y = 0; y < 20; ++y)
        for (std::int64_t x = 0; x < 20; ++x) {
          image.at({x, y, z}) = static_cast<float>(x);
          if (x >= 2 && x < 6 && y >= 2 && y < 6 && z >= 2 && z < 6) voxels.at({x, y, z}) = 3;
          if (x >= 10 && x < 18 && y == 10 && z == 10) voxels.at({x, y, z}) = 9;
        }
    labels = core::LabelMap(std::move(voxels));
    core::LabelEntry cube;
    cube.id = 3;
    cube.name = "cube, \"small\"";
    cube.color = {200, 10, 20, 255};
    cube.terminology.type = {"SCT", "10200004", "Liver"};
    REQUIRE(table.add(cube).ok());
    stats = core::computeLabelStatistics(labels, &image).value();
    REQUIRE(stats.size() == 2);
  }
};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST_CASE("statistics CSV: a header, one row per label, quoted names, colours and codes", "[statistics-report]") {
  Fixture f;
  const auto rows = lines(io::statisticsCsv(f.stats, f.table));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].rfind("label,name,voxels,volume_ml,mean,std,min,max,median,longest_diameter_mm", 0) == 0);
  CHECK(rows[1].rfind("3,\"cube, \"\"small\"\"\",64,", 0) == 0);
  CHECK(rows[1].find("#c80a14,SCT:10200004") != std::string::npos);
  CHECK(rows[2].rfind("9,label 9,8,", 0) == 0);
  // The median of x over the cube (x = 2..5, each 16 times) is 3.5; over the bar (10..17) 13.5, and the bar's
  // diameter is 7 voxels of 0.5 mm.
  CHECK(rows[1].find(",3.5,") != std::string::npos);
  CHECK(rows[2].find(",13.5,3.5,") != std::string::npos);
  // Without an image the intensity fields are empty, not "nan".
  auto noImage = core::computeLabelStatistics(f.labels, nullptr).value();
  const std::string csv = io::statisticsCsv(noImage, f.table);
  CHECK(csv.find("nan") == std::string::npos);
  CHECK(lines(csv)[1].find(",64,0.032,,,,,,") != std::string::npos);  // 64 voxels of 0.5 mm^3
}

TEST_CASE("statistics JSON: the numbers, the grid, and nothing identifying when de-identified", "[statistics-report]") {
  Fixture f;
  io::StatisticsReportInfo info;
  info.image = "/data/Doe^John/ct.nii.gz";
  info.labelSource = "labels.nii.gz";
  info.intensityUnit = "HU";
  info.geometry = f.image.geometry();
  auto j = nlohmann::json::parse(io::statisticsJson(f.stats, f.table, info));
  CHECK(j["image"] == "/data/Doe^John/ct.nii.gz");
  CHECK(j["intensity_unit"] == "HU");
  CHECK(j["geometry"]["spacing_mm"][2] == 2.0);
  REQUIRE(j["labels"].size() == 2);
  CHECK(j["labels"][0]["name"] == "cube, \"small\"");
  CHECK(j["labels"][0]["voxels"] == 64);
  CHECK(j["labels"][0]["median"] == Approx(3.5));
  CHECK(j["labels"][0]["code"] == "SCT:10200004");
  CHECK(j["labels"][1]["longest_diameter_mm"] == Approx(3.5));
  info.deidentified = true;
  const std::string anonymous = io::statisticsJson(f.stats, f.table, info);
  j = nlohmann::json::parse(anonymous);
  CHECK_FALSE(j.contains("image"));
  CHECK_FALSE(j.contains("label_source"));
  CHECK(anonymous.find("Doe") == std::string::npos);
  CHECK(j["deidentified"] == true);
}

TEST_CASE("statistics files: by extension, atomic, errors name the file", "[statistics-report]") {
  Fixture f;
  ScratchDir dir("statistics-report");
  const std::string csv = (dir / "stats.csv").string(), json = (dir / "stats.json").string();
  REQUIRE(io::writeStatisticsFile(csv, f.stats, f.table, {}).ok());
  REQUIRE(io::writeStatisticsFile(json, f.stats, f.table, {}).ok());
  std::ifstream in(json);
  const auto j = nlohmann::json::parse(in);
  CHECK(j["labels"].size() == 2);
  const auto wrong = io::writeStatisticsFile((dir / "stats.txt").string(), f.stats, f.table, {});
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().describe().find("stats.txt") != std::string::npos);
  const auto missing = io::writeStatisticsFile((dir / "no" / "such" / "stats.csv").string(), f.stats, f.table, {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().describe().find("stats.csv") != std::string::npos);
  // A failed write leaves the previous file as it was: the target is a folder now, the old CSV stays untouched.
  const std::string before = io::statisticsCsv(f.stats, f.table);
  std::filesystem::create_directories(dir / "dir.csv");
  CHECK_FALSE(io::writeStatisticsFile((dir / "dir.csv").string(), f.stats, f.table, {}).ok());
  std::ifstream again(csv);
  const std::string kept((std::istreambuf_iterator<char>(again)), std::istreambuf_iterator<char>());
  CHECK(kept == before);
}
