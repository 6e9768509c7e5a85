// Every read audited (issue 47, item 3), through the program: study get, share get and checkpoint get each leave a
// "read" record naming what was read and where it went; audit show finds them by study, user, action and time; a
// read whose record cannot be written is refused and writes nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/edit_transaction.h"
#include "core/label_map.h"
#include "io/base/process_info.h"
#include "io/volume/nifti.h"
#include "tests/common/test_support.h"

using namespace delineate;
using namespace delineate::test;
namespace fs = std::filesystem;

#include "tests/cli/cli_in_folder.h"

TEST_CASE("cli audit: study get, share get and checkpoint get are audited as reads, audit show filters them, and an "
          "unrecordable read is refused",
          "[cli][share][audit]") {
  auto ct = sharedFile("data/ct/tcia-crlm-ct-series/CRLM-CT-1004");
  if (!ct) return;
  ScratchDir dir("cli-audit-reads");
  fs::create_directories(dir / "share");
  const std::string root = quoted((dir / "share").string());
  REQUIRE(cli(dir, "share init " + root).exitCode == 0);
  REQUIRE(cli(dir, "study import " + root + " " + quoted(ct->string())).exitCode == 0);

  const core::Geometry g({16, 12, 6}, {1.0, 1.0, 2.0}, {0.0, 0.0, 0.0});
  auto map = core::LabelMap::create(g);
  REQUIRE(map.ok());
  core::EditTransaction t(*map, "paint");
  t.fillBox(core::IndexBox{{2, 2, 1}, {9, 8, 4}}, 1);
  REQUIRE(t.commit().has_value());
  REQUIRE(io::writeNiftiLabels((dir / "labels.nii.gz").string(), *map).ok());
  REQUIRE(cli(dir, "share save " + root + " m1 atlas " + quoted((dir / "labels.nii.gz").string()) + " --author ann").exitCode == 0);
  {  // a safetensors file of one float32 tensor
    const std::string header = R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})";
    std::ofstream out(dir / "model.safetensors", std::ios::binary);
    const std::uint64_t n = header.size();
    for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
    out << header << std::string(16, '\0');
  }
  REQUIRE(cli(dir, "checkpoint put " + root + " liver " + quoted((dir / "model.safetensors").string())).exitCode == 0);

  const auto readsBefore = jsonOf(cli(dir, "audit show " + root + " --action read --json"));
  CHECK(readsBefore["records"].empty());  // imports and saves are not reads

  REQUIRE(cli(dir, "study get " + root + " " + kCrlmStudyUid + " " + kCrlmSeriesUid + " " + quoted((dir / "ct").string()))
              .exitCode == 0);
  REQUIRE(cli(dir, "share get " + root + " m1 atlas 1 " + quoted((dir / "got.nii.gz").string())).exitCode == 0);
  REQUIRE(cli(dir, "checkpoint get " + root + " liver 1 " + quoted((dir / "got.safetensors").string())).exitCode == 0);

  const auto reads = jsonOf(cli(dir, "audit show " + root + " --action read --json"));
  REQUIRE(reads["records"].size() == 3);
  const auto& series = reads["records"][0];
  CHECK(series["study"] == kCrlmStudyUid);
  CHECK(series["user"] == io::processUserName());
  CHECK(series["detail"].get<std::string>().find("series " + kCrlmSeriesUid + " (41 files) to " + (dir / "ct").string()) !=
        std::string::npos);
  CHECK(reads["records"][1]["study"] == "m1");
  CHECK(reads["records"][1]["labelSet"] == "atlas");
  CHECK(reads["records"][1]["revision"] == 1);
  CHECK(reads["records"][1]["detail"] == "copied to " + (dir / "got.nii.gz").string());
  CHECK(reads["records"][2]["labelSet"] == "liver");
  CHECK(reads["records"][2]["detail"].get<std::string>().find("got.safetensors") != std::string::npos);

  // Filters: by study, by user, by time (the records are from today; nothing before 2000 or from 2999 on).
  CHECK(jsonOf(cli(dir, "audit show " + root + " --study " + kCrlmStudyUid + " --json"))["records"].size() >= 2);  // import + read
  CHECK(jsonOf(cli(dir, "audit show " + root + " --study m1 --action read --json"))["records"].size() == 1);
  CHECK(jsonOf(cli(dir, "audit show " + root + " --user nobody-at-all --json"))["records"].empty());
  CHECK(jsonOf(cli(dir, "audit show " + root + " --from 2999-01-01 --json"))["records"].empty());
  CHECK(jsonOf(cli(dir, "audit show " + root + " --to 1999 --json"))["records"].empty());
  const std::string today = jsonOf(cli(dir, "audit show " + root + " --json"))["records"][0]["time"].get<std::string>().substr(0, 10);
  CHECK(jsonOf(cli(dir, "audit show " + root + " --action read --from " + today + " --to " + today + " --json"))["records"].size() == 3);
  const SplitRun text = cli(dir, "audit show " + root + " --action read");
  CHECK(text.out.find("read        m1 / atlas r1  copied to") != std::string::npos);
  CHECK(text.out.find("3 record(s)") != std::string::npos);
  CHECK(cli(dir, "audit show " + root + " --action peek").exitCode == 2);

  // A torn last line: the log refuses appends, so the read is refused and nothing is written.
  const fs::path log = dir / "share" / "audit" / ("audit-" + io::localHostName() + ".jsonl");
  REQUIRE(fs::exists(log));
  std::ofstream(log, std::ios::app) << "{\"seq\": 99, \"torn";
  const SplitRun refused = cli(dir, "share get " + root + " m1 atlas 1 " + quoted((dir / "again.nii.gz").string()));
  CHECK(refused.exitCode == 1);
  CHECK(refused.err.find("was not read: every read is audited") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "again.nii.gz"));
  const SplitRun seriesRefused =
      cli(dir, "study get " + root + " " + kCrlmStudyUid + " " + kCrlmSeriesUid + " " + quoted((dir / "ct2").string()));
  CHECK(seriesRefused.exitCode == 1);
  CHECK(seriesRefused.err.find("was not read: every read is audited") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "ct2"));
  // audit show says the log is damaged, and shows what came before.
  const SplitRun shown = cli(dir, "audit show " + root);
  CHECK(shown.exitCode == 1);
  CHECK(shown.out.find("TAMPERED or damaged") != std::string::npos);
  CHECK(shown.out.find("torn last line") != std::string::npos);
}
