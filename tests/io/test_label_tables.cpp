#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "io/labels/label_table_io.h"
#include "io/labels/terminology.h"
#include "tests/common/test_support.h"

#if defined(__unix__)
#include <sys/stat.h>
#include <unistd.h>
#endif

using namespace delineate;
using namespace delineate::io;
using core::ErrorCode;
using core::LabelTable;
using core::Rgba;
using delineate::test::ScratchDir;
using delineate::test::sharedFile;

namespace fs = std::filesystem;

namespace {

std::string withoutCr(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '\r'), s.end());
  return s;
}

std::string fileText(const fs::path& p) { return delineate::test::readTextFile(p); }

// Compares entry by entry first so a failure names the label rather than dumping two whole tables.
void requireSameEntries(const LabelTable& a, const LabelTable& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const core::LabelEntry& x = a.entries()[i];
    const core::LabelEntry& y = b.entries()[i];
    INFO("label " << x.id << " '" << x.name << "' vs " << y.id << " '" << y.name << "'");
    REQUIRE(x.id == y.id);
    REQUIRE(x.name == y.name);
    REQUIRE(x.color == y.color);
    REQUIRE(x.visible == y.visible);
    REQUIRE(x.meshVisible == y.meshVisible);
    REQUIRE(x.terminology == y.terminology);
  }
  REQUIRE(a == b);
}

const char* kStr = "test-input";

core::LabelEntry makeEntry(core::Label id, std::string name, Rgba color) {
  core::LabelEntry e;
  e.id = id;
  e.name = std::move(name);
  e.color = color;
  return e;
}

void requireParseError(const core::Error& e, int line, const std::string& reason, const std::string& subject = kStr) {
  INFO(e.describe());
  CHECK(e.code == ErrorCode::ParseError);
  CHECK(e.subject == subject);
  CHECK(e.line == line);
  CHECK(e.detail.find(reason) != std::string::npos);
}

}  // namespace

// ---- ITK-SNAP ---------------------------------------------------------------------------------------------------

TEST_CASE("ITK-SNAP label description: real values and byte-identical rewrite", "[labels][itksnap]") {
  auto p = sharedFile("data/labels/itksnap_MRIcrop-seg.label");
  if (!p) return;
  auto t = readItkSnapLabelsFile(*p);
  REQUIRE(t.ok());
  REQUIRE(t->size() == 12);
  const core::LabelEntry* hippo = t->find(4);
  REQUIRE(hippo != nullptr);
  CHECK(hippo->name == "hippo-R");
  CHECK(hippo->color == Rgba{255, 255, 0, 255});
  CHECK(hippo->visible);
  CHECK(hippo->meshVisible);
  const core::LabelEntry* clear = t->find(0);
  REQUIRE(clear != nullptr);
  CHECK(clear->name == "Clear");
  CHECK(clear->color.a == 0);
  CHECK_FALSE(clear->visible);
  CHECK_FALSE(clear->meshVisible);
  CHECK(t->find(8)->name == "corpus-callosum");
  CHECK(t->find(11)->color == Rgba{4, 0, 128, 255});
  // The column header comment is format boilerplate, not a note.
  CHECK(t->notes().empty());

  // Our writer uses ITK-SNAP's own layout, so the file comes back identical apart from CRLF -> LF.
  CHECK(writeItkSnapLabelsString(*t) == withoutCr(fileText(*p)));
}

TEST_CASE("ITK-SNAP opacity: two decimals round trip, and every alpha survives", "[labels][itksnap]") {
  for (int hundredths = 0; hundredths <= 100; ++hundredths) {
    char line[80];
    std::snprintf(line, sizeof line, "    1   10   20   30  %4.2f  1   1    \"x\"\n", hundredths / 100.0);
    auto t = readItkSnapLabelsString(line, kStr);
    REQUIRE(t.ok());
    const std::string written = writeItkSnapLabelsString(*t);
    char expected[16];
    std::snprintf(expected, sizeof expected, " %4.2f ", hundredths / 100.0);
    INFO(written);
    CHECK(written.find(expected) != std::string::npos);
  }
  for (int a = 0; a <= 255; ++a) {
    LabelTable table;
    core::LabelEntry e;
    e.id = 3;
    e.name = "alpha";
    e.color = Rgba{1, 2, 3, static_cast<std::uint8_t>(a)};
    REQUIRE(table.add(e).ok());
    auto back = readItkSnapLabelsString(writeItkSnapLabelsString(table), kStr);
    REQUIRE(back.ok());
    CHECK(int(back->find(3)->color.a) == a);
  }
}

TEST_CASE("ITK-SNAP names with spaces and flags round trip", "[labels][itksnap]") {
  const std::string text =
      "# my labels\n"
      "    0     0    0    0  0.00  0   0    \"Clear Label\"\n"
      "  300    10   20   30  0.50  0   1    \"left  lung, upper lobe\"\n";
  auto t = readItkSnapLabelsString(text, kStr);
  REQUIRE(t.ok());
  CHECK(t->find(300)->name == "left  lung, upper lobe");
  CHECK_FALSE(t->find(300)->visible);
  CHECK(t->find(300)->meshVisible);
  CHECK(t->find(300)->color.a == 128);
  REQUIRE(t->notes() == std::vector<std::string>{"my labels"});
  auto back = readItkSnapLabelsString(writeItkSnapLabelsString(*t), kStr);
  REQUIRE(back.ok());
  requireSameEntries(*t, *back);
  CHECK(back->notes() == t->notes());
}

// ---- Slicer -----------------------------------------------------------------------------------------------------

TEST_CASE("Slicer colour tables (.txt, .ctbl): values and round trips", "[labels][slicer]") {
  SECTION("ColorTest.ctbl is written back identically") {
    auto p = sharedFile("data/labels/slicer/ColorTest.ctbl");
    if (!p) return;
    auto t = readSlicerColorTableFile(*p);
    REQUIRE(t.ok());
    REQUIRE(t->size() == 3);
    CHECK(t->find(1)->name == "one");
    CHECK(t->find(1)->color == Rgba{255, 59, 21, 255});
    CHECK(t->find(0)->color == Rgba{0, 0, 0, 255});
    REQUIRE(t->notes().size() == 2);
    CHECK(t->notes()[1] == "3 values");
    CHECK(writeSlicerColorTableString(*t) == fileText(*p));
  }
  SECTION("GenericAnatomyColors") {
    auto p = sharedFile("data/labels/slicer/GenericAnatomyColors.txt");
    if (!p) return;
    auto t = readSlicerColorTableFile(*p);
    REQUIRE(t.ok());
    CHECK(t->size() == 310);
    CHECK(t->find(1)->name == "tissue");
    CHECK(t->find(1)->color == Rgba{128, 174, 128, 255});
    CHECK(t->find(0)->color == Rgba{0, 0, 0, 0});
    // Header comments and the trailing "#EOF" are notes; everything but their position survives.
    CHECK(t->notes().front() == "WARNING: This file is automatically generated.");
    CHECK(t->notes().back() == "EOF");
    const std::string written = writeSlicerColorTableString(*t);
    std::multiset<std::string> dataLinesOriginal, dataLinesWritten;
    auto collect = [](const std::string& text, std::multiset<std::string>& out) {
      std::size_t pos = 0;
      while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(pos, end - pos);
        if (!line.empty() && line[0] != '#') out.insert(line);
        pos = end + 1;
      }
    };
    collect(withoutCr(fileText(*p)), dataLinesOriginal);
    collect(written, dataLinesWritten);
    CHECK(dataLinesOriginal == dataLinesWritten);
  }
  SECTION("AbdomenColors (wide spacing)") {
    auto p = sharedFile("data/labels/slicer/AbdomenColors.txt");
    if (!p) return;
    auto t = readSlicerColorTableFile(*p);
    REQUIRE(t.ok());
    CHECK(t->size() == 91);
    CHECK(t->find(3)->name == "liver");
    CHECK(t->find(3)->color == Rgba{147, 59, 0, 255});
    CHECK(t->find(12)->name == "portal_vein_and_superior_mesenteric_vein");
  }
  SECTION("names with spaces are written with underscores, empty names as _") {
    LabelTable table;
    REQUIRE(table.add(makeEntry(5, "left lung", Rgba{1, 2, 3, 4})).ok());
    CHECK(writeSlicerColorTableString(table) == "5 left_lung 1 2 3 4\n");
  }
  SECTION("decimal colours as Slicer writes them are rounded; extra columns are ignored") {
    auto t = readSlicerColorTableString("7 x 254.99997 0 12.2 255 extra columns here\n", kStr);
    REQUIRE(t.ok());
    CHECK(t->find(7)->color == Rgba{255, 0, 12, 255});
  }
  SECTION("procedural colour files are refused") {
    auto t = readSlicerColorTableString("# Color procedural file /x.txt\n# 5 points\n0 0 0 0\n", kStr);
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().code == ErrorCode::Unsupported);
  }
}

TEST_CASE("Slicer CSV colour tables: values, terminology and exact rewrite", "[labels][slicer]") {
  SECTION("ColorTest.csv") {
    auto p = sharedFile("data/labels/slicer/ColorTest.csv");
    if (!p) return;
    auto t = readSlicerCsvFile(*p);
    REQUIRE(t.ok());
    REQUIRE(t->size() == 3);
    CHECK(t->find(5)->name == "five");
    CHECK(t->find(10)->color == Rgba{41, 84, 255, 255});
    CHECK(writeSlicerCsvString(*t) == fileText(*p));
  }
  SECTION("ColorTestWithTerminology.csv") {
    auto p = sharedFile("data/labels/slicer/ColorTestWithTerminology.csv");
    if (!p) return;
    auto t = readSlicerCsvFile(*p);
    REQUIRE(t.ok());
    REQUIRE(t->size() == 4);
    const core::LabelEntry* mass = t->find(6);
    REQUIRE(mass != nullptr);
    CHECK(mass->name == "right_kidney_mass");
    CHECK(mass->color == Rgba{20, 28, 140, 255});
    CHECK(mass->terminology.category == core::CodedConcept{"SCT", "49755003", "Morphologically Altered Structure"});
    CHECK(mass->terminology.type == core::CodedConcept{"SCT", "4147007", "Mass"});
    CHECK(mass->terminology.typeModifier.empty());
    CHECK(mass->terminology.region == core::CodedConcept{"SCT", "64033007", "Kidney"});
    CHECK(mass->terminology.regionModifier == core::CodedConcept{"SCT", "24028007", "Right"});
    const core::LabelEntry* left = t->find(1);
    CHECK(left->color == Rgba{185, 162, 13, 150});
    CHECK(left->terminology.type.value == "64033007");
    CHECK(left->terminology.typeModifier.meaning == "Left");
    CHECK(t->find(10)->terminology.region.meaning == "Renal artery");
    CHECK(writeSlicerCsvString(*t) == fileText(*p));
  }
  SECTION("quoting: commas and quotes in names") {
    LabelTable table;
    REQUIRE(table.add(makeEntry(2, "lung, \"upper\" lobe", Rgba{9, 8, 7, 255})).ok());
    const std::string csv = writeSlicerCsvString(table);
    CHECK(csv.find("2,\"lung, \"\"upper\"\" lobe\",9,8,7,255") != std::string::npos);
    auto back = readSlicerCsvString(csv, kStr);
    REQUIRE(back.ok());
    requireSameEntries(table, *back);
  }
  SECTION("columns in another order, no alpha, no name") {
    auto t = readSlicerCsvString(
        "Color_B,Color_G,Color_R,LabelValue,Type_CodingScheme,Type_CodeValue,Type_CodeMeaning\n"
        "3,2,1,12,SCT,10200004,Liver\n"
        "6,5,4,13,,,\n",
        kStr);
    REQUIRE(t.ok());
    CHECK(t->find(12)->color == Rgba{1, 2, 3, 255});
    CHECK(t->find(12)->name == "Liver");
    CHECK(t->find(13)->name == "label_13");
  }
  SECTION("tab-separated") {
    auto t = readSlicerCsvString("LabelValue\tName\tColor_R\tColor_G\tColor_B\n4\tfour\t1\t2\t3\n", kStr);
    REQUIRE(t.ok());
    CHECK(t->find(4)->name == "four");
  }
}

// ---- plain lists and SCT ----------------------------------------------------------------------------------------

TEST_CASE("Label lists: the mouse atlas's labels get colours that stay apart (issue 41: 1 and 14 in one green)",
          "[labels][lists]") {
  auto p = sharedFile("data/labels/structure_label_list_hemisphere_separated.csv");
  if (!p) return;
  auto t = readLabelListFile(*p);
  REQUIRE(t.ok());
  REQUIRE(t->size() == 41);
  CHECK(LabelTable::colorDistance(t->find(1)->color, t->find(14)->color) >= 20);
  double closest = 1e9;
  core::Label a = 0, b = 0;
  for (const core::LabelEntry& x : t->entries())
    for (const core::LabelEntry& y : t->entries())
      if (x.id != 0 && y.id > x.id && LabelTable::colorDistance(x.color, y.color) < closest)
        closest = LabelTable::colorDistance(x.color, y.color), a = x.id, b = y.id;
  INFO("closest: labels " << a << " and " << b << ", delta E " << closest);
  CHECK(closest >= 20);  // CIE76: about 2.3 is a just noticeable difference; the hue walk gave 6.6
}

TEST_CASE("Label lists: header detection, default colours, trailing notes", "[labels][lists]") {
  SECTION("structure_label_list.csv keeps its free-text tail as notes") {
    auto p = sharedFile("data/labels/structure_label_list.csv");
    if (!p) return;
    LabelListLayout layout;
    auto t = readLabelListFile(*p, &layout);
    REQUIRE(t.ok());
    CHECK(layout.idHeader == "Label");
    CHECK(layout.nameHeader == "Structure");
    CHECK(layout.delimiter == ',');
    REQUIRE(t->size() == 20);
    CHECK(t->find(1)->name == "Hippocampus");
    CHECK(t->find(20)->name == "Fimbria");
    CHECK(t->find(7)->color == LabelTable::distinctColor(6));  // the 7th label: colours that stay apart (issue 41)
    REQUIRE(t->notes().size() == 7);
    CHECK(t->notes()[0] == "After left/right seperation,");
    CHECK(t->notes()[1] == "1~20,Right Hemisphere");
    CHECK(t->notes()[3] == "Notice # left/right combined labels,");

    const std::string written = writeLabelListString(*t, layout);
    CHECK(written.find("# After left/right seperation,\n") != std::string::npos);
    LabelListLayout layout2;
    auto back = readLabelListString(written, kStr, &layout2);
    REQUIRE(back.ok());
    requireSameEntries(*t, *back);
    CHECK(back->notes() == t->notes());
    CHECK(layout2 == layout);
  }
  SECTION("hemisphere list with background, TSV class lists") {
    auto p = sharedFile("data/labels/structure_label_list_hemisphere_separated.csv");
    auto q = sharedFile("data/labels/totalsegmentator_total_classes.tsv");
    if (!p || !q) return;
    LabelListLayout layout;
    auto t = readLabelListFile(*p, &layout);
    REQUIRE(t.ok());
    CHECK(t->size() == 41);
    CHECK(t->find(0)->name == "Background");
    CHECK(t->find(40)->name == "Right Fimbria");
    CHECK(layout.nameHeader == "structure_name");
    // The file has no final newline; everything else is our canonical style.
    CHECK(writeLabelListString(*t, layout) == fileText(*p) + "\n");

    LabelListLayout tsv;
    auto ts = readLabelListFile(*q, &tsv);
    REQUIRE(ts.ok());
    CHECK(tsv.delimiter == '\t');
    CHECK(tsv.idHeader == "label_value");
    CHECK(ts->size() == 117);
    CHECK(ts->find(2)->name == "kidney_right");
    CHECK(writeLabelListString(*ts, tsv) == withoutCr(fileText(*q)));
  }
  SECTION("headerless lists, unquoted commas in a last-column name, id/label header") {
    auto t = readLabelListString("1,liver\n2,lemniscus (a, b)\n", kStr);
    REQUIRE(t.ok());
    CHECK(t->find(2)->name == "lemniscus (a, b)");
    LabelListLayout layout;
    auto u = readLabelListString("id;label\n5;spleen\n", kStr, &layout);
    REQUIRE(u.ok());
    CHECK(layout.delimiter == ';');
    CHECK(u->find(5)->name == "spleen");
  }
}

TEST_CASE("SCT atlas info_label.txt: labels, files and other sections survive", "[labels][sct]") {
  auto p = sharedFile("data/labels/sct_PAM50_atlas_info_label.txt");
  if (!p) return;
  SctAtlasExtras extras;
  auto t = readSctInfoLabelFile(*p, &extras);
  REQUIRE(t.ok());
  REQUIRE(t->size() == 37);
  CHECK(t->find(0)->name == "WM left fasciculus gracilis");
  CHECK(t->find(12)->name == "WM left spinal lemniscus (spinothalamic and spinoreticular tracts)");
  CHECK(t->find(36)->name == "CSF contour");
  CHECK(extras.files.at(36) == "PAM50_atlas_36.nii.gz");
  CHECK(t->notes() == std::vector<std::string>{"White matter atlas. Generated on: 01-Sep-2016", ""});
  REQUIRE(extras.trailer.size() > 5);
  CHECK(extras.trailer[0].empty());
  CHECK(extras.trailer[2] == "# Keyword=CombinedLabels (Please DO NOT change this line)");
  CHECK(writeSctInfoLabelString(*t, &extras) == withoutCr(fileText(*p)));

  // Without the extras the file is still a valid info_label.txt.
  auto plain = readSctInfoLabelString(writeSctInfoLabelString(*t), kStr);
  REQUIRE(plain.ok());
  requireSameEntries(*t, *plain);
}

// ---- terminology ------------------------------------------------------------------------------------------------

TEST_CASE("Label name normalisation", "[labels][terminology]") {
  CHECK(normalizeLabelName("right kidney") == normalizeLabelName("kidney_right"));
  CHECK(normalizeLabelName("Kidney_Right") == "kidney right");
  CHECK(normalizeLabelName("  vertebrae  L5 ") == normalizeLabelName("vertebrae_L5"));
  CHECK(normalizeLabelName("left kidney") != normalizeLabelName("right kidney"));
  CHECK(normalizeLabelName("___").empty());
}

TEST_CASE("TotalSegmentator SNOMED mapping: read, write back, apply by name", "[labels][terminology]") {
  auto p = sharedFile("data/labels/totalsegmentator_snomed_mapping.csv");
  auto q = sharedFile("data/labels/totalsegmentator_total_classes.tsv");
  if (!p || !q) return;
  auto map = readTerminologyMapFile(*p);
  REQUIRE(map.ok());
  CHECK(map->size() == 170);
  const TerminologyMapEntry* kidney = map->find("left kidney");
  REQUIRE(kidney != nullptr);
  CHECK(kidney->name == "kidney_left");
  CHECK(kidney->terminology.type == core::CodedConcept{"SCT", "64033007", "Kidney"});
  CHECK(kidney->terminology.typeModifier.meaning == "Left");
  const TerminologyMapEntry* cyst = map->find("kidney_cyst_right");
  REQUIRE(cyst != nullptr);
  CHECK(cyst->terminology.region.value == "64033007");
  CHECK(cyst->terminology.regionModifier.meaning == "Right");
  CHECK(cyst->color == Rgba{71, 139, 173, 255});

  CHECK(writeTerminologyMapString(*map) == withoutCr(fileText(*p)));
  auto back = readTerminologyMapString(writeTerminologyMapString(*map), kStr);
  REQUIRE(back.ok());
  CHECK(*back == *map);

  auto table = readLabelListFile(*q);
  REQUIRE(table.ok());
  const std::size_t matched = applyTerminologyMap(*table, *map);
  CHECK(matched == table->size());
  CHECK(table->find(2)->terminology.type.value == "64033007");  // kidney_right
  CHECK(table->find(2)->terminology.typeModifier.value == "24028007");
  REQUIRE(map->find("kidney_right")->color.has_value());
  CHECK(table->find(2)->color.r == map->find("kidney_right")->color->r);

  LabelTable named;
  REQUIRE(named.add(makeEntry(1, "Right Kidney", Rgba{1, 1, 1, 77})).ok());
  REQUIRE(named.add(makeEntry(2, "not an organ", Rgba{1, 1, 1, 255})).ok());
  CHECK(applyTerminologyMap(named, *map) == 1);
  CHECK(named.find(1)->terminology.type.meaning == "Kidney");
  CHECK(named.find(1)->color.a == 77);
  CHECK(named.find(2)->terminology.empty());
}

TEST_CASE("Slicer terminology contexts: read, write, read again", "[labels][terminology]") {
  for (const char* name :
       {"SegmentationCategoryTypeModifier-DICOM-Master.json",
        "SegmentationCategoryTypeModifier-SlicerGeneralAnatomy.json", "AnatomicRegionAndModifier-DICOM-Master.json"}) {
    auto p = sharedFile(std::string("data/labels/slicer/") + name);
    if (!p) return;
    INFO(name);
    auto ctx = readTerminologyContextFile(*p);
    REQUIRE(ctx.ok());
    CHECK_FALSE(ctx->name.empty());
    CHECK(ctx->schema.find("dcmqi") != std::string::npos);
    ScratchDir dir("terminology-json");
    REQUIRE(writeTerminologyContextFile(dir / name, *ctx).ok());
    auto back = readTerminologyContextFile(dir / name);
    REQUIRE(back.ok());
    REQUIRE(back->entries.size() == ctx->entries.size());
    for (std::size_t i = 0; i < ctx->entries.size(); ++i) {
      INFO("entry " << i << " " << ctx->entries[i].type.meaning);
      REQUIRE(back->entries[i] == ctx->entries[i]);
    }
    CHECK(*back == *ctx);
  }

  auto master = sharedFile("data/labels/slicer/SegmentationCategoryTypeModifier-DICOM-Master.json");
  auto anatomy = sharedFile("data/labels/slicer/SegmentationCategoryTypeModifier-SlicerGeneralAnatomy.json");
  auto regions = sharedFile("data/labels/slicer/AnatomicRegionAndModifier-DICOM-Master.json");
  if (!master || !anatomy || !regions) return;
  auto m = readTerminologyContextFile(*master);
  REQUIRE(m.ok());
  CHECK(m->kind == TerminologyContextKind::SegmentationCategoryType);
  CHECK(m->entries.size() == 8 + 684 + 666);
  CHECK(m->entries[0].category.meaning == "Tissue");
  CHECK(m->entries[0].type.empty());
  CHECK(m->entries[0].attributes.front() == std::make_pair(std::string("showAnatomy"), std::string("true")));

  auto r = readTerminologyContextFile(*regions);
  REQUIRE(r.ok());
  CHECK(r->kind == TerminologyContextKind::AnatomicRegion);
  CHECK(r->entries.size() == 612 + 807);

  auto a = readTerminologyContextFile(*anatomy);
  REQUIRE(a.ok());
  const LabelTable table = labelTableFromTerminologyContext(*a);
  CHECK(table.size() == 248);
  const core::LabelEntry* kidneyLeft = table.find(223);
  REQUIRE(kidneyLeft != nullptr);
  CHECK(kidneyLeft->name == "left kidney");
  CHECK(kidneyLeft->color == Rgba{185, 102, 83, 255});
  CHECK(kidneyLeft->terminology.type.value == "64033007");
  CHECK(kidneyLeft->terminology.typeModifier.meaning == "Left");
  // Integer label 45 is used twice in Slicer's file; the entry with a 3dSlicerLabel wins.
  CHECK(table.find(45)->name == "left temporal lobe");

  LabelTableFormat format{};
  auto viaDispatch = readLabelTableFile(*anatomy, &format);
  REQUIRE(viaDispatch.ok());
  CHECK(format == LabelTableFormat::SlicerTerminologyContext);
  CHECK(*viaDispatch == table);
}

// ---- every shared file --------------------------------------------------------------------------------------------

TEST_CASE("Every file in data/labels round trips in its own format", "[labels][roundtrip]") {
  auto root = sharedFile("data/labels");
  if (!root) return;
  ScratchDir scratch("label-roundtrip");
  int checked = 0, files = 0;
  for (const auto& item : fs::recursive_directory_iterator(*root)) {
    if (!item.is_regular_file() || item.path().filename() == "SOURCES.md") continue;
    ++files;
    const fs::path& src = item.path();
    const fs::path dst = scratch / src.filename().string();
    INFO(src.string());
    const std::string text = fileText(src);
    const LabelTableFormat format = detectLabelTableFormat(src, text);
    CHECK(format != LabelTableFormat::Unknown);

    switch (format) {
      case LabelTableFormat::TerminologyMap: {
        auto map = readTerminologyMapFile(src);
        REQUIRE(map.ok());
        REQUIRE(writeTerminologyMapFile(dst, *map).ok());
        auto back = readTerminologyMapFile(dst);
        REQUIRE(back.ok());
        CHECK(*back == *map);
        break;
      }
      case LabelTableFormat::SlicerTerminologyContext: {
        auto ctx = readTerminologyContextFile(src);
        REQUIRE(ctx.ok());
        REQUIRE(writeTerminologyContextFile(dst, *ctx).ok());
        auto back = readTerminologyContextFile(dst);
        REQUIRE(back.ok());
        CHECK(*back == *ctx);
        break;
      }
      case LabelTableFormat::LabelList: {
        LabelListLayout layout, layout2;
        auto t = readLabelListFile(src, &layout);
        REQUIRE(t.ok());
        REQUIRE(writeLabelListFile(dst, *t, layout).ok());
        auto back = readLabelListFile(dst, &layout2);
        REQUIRE(back.ok());
        requireSameEntries(*t, *back);
        CHECK(back->notes() == t->notes());
        CHECK(layout2 == layout);
        break;
      }
      case LabelTableFormat::SctAtlasInfo: {
        SctAtlasExtras extras, extras2;
        auto t = readSctInfoLabelFile(src, &extras);
        REQUIRE(t.ok());
        REQUIRE(writeSctInfoLabelFile(dst, *t, &extras).ok());
        auto back = readSctInfoLabelFile(dst, &extras2);
        REQUIRE(back.ok());
        requireSameEntries(*t, *back);
        CHECK(back->notes() == t->notes());
        CHECK(extras2 == extras);
        break;
      }
      default: {
        auto t = readLabelTableFile(src);
        REQUIRE(t.ok());
        REQUIRE(!t->empty());
        REQUIRE(writeLabelTableFile(dst, *t, format).ok());
        LabelTableFormat again{};
        auto back = readLabelTableFile(dst, &again);
        REQUIRE(back.ok());
        CHECK(again == format);
        requireSameEntries(*t, *back);
        if (format != LabelTableFormat::SlicerCsv) CHECK(back->notes() == t->notes());
        break;
      }
    }
    ++checked;
  }
  CHECK(files >= 15);
  CHECK(checked == files);
}

TEST_CASE("Format detection by extension and content", "[labels][dispatch]") {
  struct Case {
    const char* file;
    LabelTableFormat format;
  };
  for (const Case& c : {Case{"itksnap_MRIcrop-seg.label", LabelTableFormat::ItkSnap},
                        Case{"sct_PAM50_atlas_info_label.txt", LabelTableFormat::SctAtlasInfo},
                        Case{"structure_label_list.csv", LabelTableFormat::LabelList},
                        Case{"totalsegmentator_total_mr_classes.tsv", LabelTableFormat::LabelList},
                        Case{"totalsegmentator_snomed_mapping.csv", LabelTableFormat::TerminologyMap},
                        Case{"slicer/PelvisColor.txt", LabelTableFormat::SlicerColorTable},
                        Case{"slicer/ColorTest.ctbl", LabelTableFormat::SlicerColorTable},
                        Case{"slicer/ColorTestWithTerminology.csv", LabelTableFormat::SlicerCsv}}) {
    auto p = sharedFile(std::string("data/labels/") + c.file);
    if (!p) return;
    INFO(c.file);
    CHECK(detectLabelTableFormat(*p, fileText(*p)) == c.format);
    // Content alone, as for a file with a foreign extension.
    CHECK(detectLabelTableFormat("unnamed.dat", fileText(*p)) == c.format);
  }
  CHECK(detectLabelTableFormat("x.txt", "    1   255 0 0  1.00  1  1    \"a b\"\n") == LabelTableFormat::ItkSnap);
  CHECK(detectLabelTableFormat("x.dat", "hello world\n") == LabelTableFormat::Unknown);

  auto map = sharedFile("data/labels/totalsegmentator_snomed_mapping.csv");
  if (!map) return;
  auto t = readLabelTableFile(*map);
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().code == ErrorCode::Unsupported);
}

TEST_CASE("Cross-format: ITK-SNAP -> Slicer CSV -> ITK-SNAP keeps ids, names and colours", "[labels][cross]") {
  auto p = sharedFile("data/labels/itksnap_MRIcrop-seg.label");
  if (!p) return;
  auto snap = readItkSnapLabelsFile(*p);
  REQUIRE(snap.ok());
  ScratchDir dir("label-cross");
  REQUIRE(writeLabelTableFile(dir / "labels.csv", *snap).ok());
  auto csv = readLabelTableFile(dir / "labels.csv");
  REQUIRE(csv.ok());
  REQUIRE(writeLabelTableFile(dir / "labels.label", *csv).ok());
  auto back = readItkSnapLabelsFile(dir / "labels.label");
  REQUIRE(back.ok());
  for (const LabelTable* t : {&*csv, &*back}) {
    REQUIRE(t->size() == snap->size());
    for (std::size_t i = 0; i < t->size(); ++i) {
      CHECK(t->entries()[i].id == snap->entries()[i].id);
      CHECK(t->entries()[i].name == snap->entries()[i].name);
      CHECK(t->entries()[i].color == snap->entries()[i].color);
    }
  }
  // Via a Slicer .ctbl as well.
  REQUIRE(writeLabelTableFile(dir / "labels.ctbl", *snap).ok());
  auto ctbl = readLabelTableFile(dir / "labels.ctbl");
  REQUIRE(ctbl.ok());
  CHECK(ctbl->find(4)->color == Rgba{255, 255, 0, 255});
  CHECK(ctbl->find(4)->name == "hippo-R");
}

// ---- errors -----------------------------------------------------------------------------------------------------

TEST_CASE("Malformed lines give ParseError with file and line", "[labels][errors]") {
  using Reader = std::function<core::Result<LabelTable>(std::string_view, const std::string&)>;
  struct Case {
    const char* what;
    Reader read;
    const char* text;
    int line;
    const char* reason;
  };
  const Reader itk = readItkSnapLabelsString, ctbl = readSlicerColorTableString, csv = readSlicerCsvString;
  const Reader list = [](std::string_view t, const std::string& s) { return readLabelListString(t, s); };
  const Reader sct = [](std::string_view t, const std::string& s) { return readSctInfoLabelString(t, s); };
  const char* csvHeader = "LabelValue,Name,Color_R,Color_G,Color_B,Color_A\n";
  const std::string csvShort = std::string(csvHeader) + "1,a,1,2,3,4\n2,b,1,2\n";
  const std::string csvRange = std::string(csvHeader) + "1,a,1,2,300,4\n";
  const std::string csvDup = std::string(csvHeader) + "4,a,1,2,3,4\n\n4,b,1,2,3,4\n";
  const std::string csvQuote = std::string(csvHeader) + "4,\"a,1,2,3,4\n";
  const std::vector<Case> cases = {
      {"itk fields", itk, "# c\n    1 0 0 0 1.00\n", 2, "expected 8 fields"},
      {"itk colour", itk, "1 0 300 0 1.00 1 1 \"a\"\n", 1, "colour 300 out of range 0..255"},
      {"itk opacity", itk, "1 0 0 0 1.5 1 1 \"a\"\n", 1, "opacity 1.5 out of range 0..1"},
      {"itk flag", itk, "1 0 0 0 1 2 1 \"a\"\n", 1, "visibility '2' must be 0 or 1"},
      {"itk quote", itk, "1 0 0 0 1 1 1 \"abc\n", 1, "unterminated"},
      {"itk unquoted", itk, "1 0 0 0 1 1 1 abc\n", 1, "double quotes"},
      {"itk duplicate", itk, "4 0 0 0 1 1 1 \"a\"\r\n4 0 0 0 1 1 1 \"b\"\r\n", 2, "duplicate label id 4"},
      {"itk id", itk, "x 0 0 0 1 1 1 \"a\"\n", 1, "label id 'x' is not an integer"},
      {"itk id range", itk, "70000 0 0 0 1 1 1 \"a\"\n", 1, "label id 70000 out of range 0..65535"},
      {"itk empty name", itk, "1 0 0 0 1 1 1 \"\"\n", 1, "empty name"},
      {"ctbl fields", ctbl, "# h\n0 a 1 2 3 4\n1 b 1 2 3\n", 3, "expected 6 fields"},
      {"ctbl colour", ctbl, "1 a 1 2 -3 4\n", 1, "colour -3 out of range 0..255"},
      {"ctbl number", ctbl, "1 a 1 2 x 4\n", 1, "colour 'x' is not a number"},
      {"ctbl duplicate", ctbl, "2 a 1 2 3 4\n2 b 1 2 3 4\n", 2, "duplicate label id 2"},
      {"csv fields", csv, csvShort.c_str(), 3, "expected 6 fields, found 4"},
      {"csv colour", csv, csvRange.c_str(), 2, "colour 300 out of range 0..255"},
      {"csv duplicate", csv, csvDup.c_str(), 4, "duplicate label id 4"},
      {"csv quote", csv, csvQuote.c_str(), 2, "unterminated quoted field"},
      {"csv header", csv, "LabelValue,Name,Color_R,Color_G\n", 1, "missing column 'Color_B'"},
      {"list header", list, "foo,bar\n1,a\n", 1, "cannot find the label id and name columns"},
      {"list malformed then data", list, "label,name\n1,a\noops,b\n\n3,c\n", 3, "label id 'oops' is not an integer"},
      {"list duplicate", list, "label,name\n1,a\n1,b\n", 3, "duplicate label id 1"},
      {"list empty name then data", list, "label,name\n1,a\n2,\n3,c\n", 3, "empty name"},
      {"sct fields", sct, "# Keyword=IndivLabels\n# ID, name, file\n0, a, f.nii\n1, b\n", 4, "expected 3 fields"},
      {"sct id", sct, "# Keyword=IndivLabels\n# ID, name, file\nx, a, f.nii\n", 3, "label id 'x'"},
      {"sct rows first", sct, "0, a, f.nii\n", 1, "before the '# Keyword=IndivLabels' line"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    auto r = c.read(c.text, kStr);
    REQUIRE_FALSE(r.ok());
    requireParseError(r.error(), c.line, c.reason);
  }

  // Terminology map and JSON.
  auto m = readTerminologyMapString("Structure,DicomRGBColor\nliver,\"1,2\"\n", kStr);
  REQUIRE_FALSE(m.ok());
  requireParseError(m.error(), 2, "must be three numbers");
  auto dup = readTerminologyMapString("Structure\nkidney_left\nleft kidney\n", kStr);
  REQUIRE_FALSE(dup.ok());
  requireParseError(dup.error(), 3, "duplicate structure name");
  auto j = readTerminologyContextString("{\n  \"SegmentationCodes\": {\n    \"Category\": [\n      {,}\n", kStr);
  REQUIRE_FALSE(j.ok());
  requireParseError(j.error(), 4, "JSON");
  auto js = readTerminologyContextString(R"({"SegmentationCodes": {"Category": [{"CodeValue": "1",
      "CodingSchemeDesignator": "SCT", "CodeMeaning": "x", "Type": [{"CodeValue": "2", "CodeMeaning": "y"}]}]}})",
                                         kStr);
  REQUIRE_FALSE(js.ok());
  requireParseError(js.error(), 0, "SegmentationCodes.Category[0].Type[0]: missing CodingSchemeDesignator");
}

TEST_CASE("Errors from files name the file, a missing file is NotFound", "[labels][errors]") {
  ScratchDir dir("label-errors");
  const fs::path bad = dir / "bad.label";
  delineate::test::writeTextFile(bad, "# header\n\n    1 0 0 0 1.00 1 1 \"ok\"\n    2 0 0 0\n");
  auto r = readLabelTableFile(bad);
  REQUIRE_FALSE(r.ok());
  requireParseError(r.error(), 4, "expected 8 fields, found 4", bad.string());
  CHECK(r.error().describe().find(bad.string() + ":4: parse error") == 0);

  const fs::path missing = dir / "nope.csv";
  for (const auto& read : std::vector<std::function<core::Error()>>{
           [&] { return readLabelTableFile(missing).error(); },
           [&] { return readItkSnapLabelsFile(missing).error(); },
           [&] { return readSlicerColorTableFile(missing).error(); },
           [&] { return readSlicerCsvFile(missing).error(); },
           [&] { return readLabelListFile(missing).error(); },
           [&] { return readSctInfoLabelFile(missing).error(); },
           [&] { return readTerminologyMapFile(missing).error(); },
           [&] { return readTerminologyContextFile(missing).error(); },
       }) {
    const core::Error e = read();
    CHECK(e.code == ErrorCode::NotFound);
    CHECK(e.subject == missing.string());
  }
}

TEST_CASE("Garbage and truncated inputs never crash", "[labels][errors]") {
  auto root = sharedFile("data/labels");
  if (!root) return;
  std::vector<std::string> samples;
  for (const auto& item : fs::recursive_directory_iterator(*root))
    if (item.is_regular_file()) samples.push_back(fileText(item.path()));
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int k = 0; k < 20; ++k) {
    std::string junk(static_cast<std::size_t>(50 + k * 37), '\0');
    for (char& c : junk) c = static_cast<char>(byte(rng));
    samples.push_back(junk);
  }
  samples.push_back(std::string(100000, '['));
  samples.push_back("\"");
  samples.push_back("");

  int parsed = 0, errors = 0;
  auto feed = [&](std::string_view text) {
    auto count = [&](bool ok) { ok ? ++parsed : ++errors; };
    count(readItkSnapLabelsString(text, kStr).ok());
    count(readSlicerColorTableString(text, kStr).ok());
    count(readSlicerCsvString(text, kStr).ok());
    count(readLabelListString(text, kStr).ok());
    count(readSctInfoLabelString(text, kStr).ok());
    count(readTerminologyMapString(text, kStr).ok());
    auto ctx = readTerminologyContextString(text, kStr);
    count(ctx.ok());
    if (!ctx.ok()) CHECK(ctx.error().code == ErrorCode::ParseError);
  };
  for (const std::string& s : samples) {
    const std::size_t step = std::max<std::size_t>(1, s.size() / 23);
    for (std::size_t cut = 0; cut <= s.size(); cut += step) feed(std::string_view(s).substr(0, cut));
    std::string flipped = s;
    for (std::size_t i = 0; i < flipped.size(); i += 97) flipped[i] = static_cast<char>(byte(rng));
    feed(flipped);
  }
  CHECK(parsed > 0);
  CHECK(errors > 0);
}

TEST_CASE("Writes are atomic: a failed write leaves the old file intact", "[labels][atomic]") {
  ScratchDir dir("label-atomic");
  LabelTable table;
  REQUIRE(table.add(makeEntry(1, "liver", Rgba{1, 2, 3, 255})).ok());
  const fs::path target = dir / "labels.ctbl";
  REQUIRE(writeLabelTableFile(target, table).ok());
  const std::string before = fileText(target);
  // No temporary files are left behind.
  int files = 0;
  for (auto it = fs::directory_iterator(dir.path()); it != fs::directory_iterator(); ++it) ++files;
  CHECK(files == 1);

  auto noFolder = writeLabelTableFile(dir / "missing-folder" / "x.ctbl", table);
  REQUIRE_FALSE(noFolder.ok());
  CHECK(noFolder.error().code == ErrorCode::WriteFailed);

  auto badExt = writeLabelTableFile(dir / "x.unknown", table);
  REQUIRE_FALSE(badExt.ok());
  CHECK(badExt.error().code == ErrorCode::InvalidArgument);

#if defined(__unix__)
  if (::geteuid() != 0) {  // root ignores folder permissions
    ::chmod(dir.path().c_str(), 0500);
    LabelTable other;
    REQUIRE(other.add(makeEntry(2, "spleen", Rgba{1, 2, 3, 255})).ok());
    auto denied = writeLabelTableFile(target, other);
    ::chmod(dir.path().c_str(), 0700);
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().code == ErrorCode::WriteFailed);
    CHECK(fileText(target) == before);
  }
#endif
  CHECK(fileText(target) == before);
}

// ---- resources --------------------------------------------------------------------------------------------------

TEST_CASE("VISTA-3D default label table resource", "[labels][resources]") {
  const fs::path path = DELINEATE_SOURCE_DIR "/resources/labels/vista3d.csv";
  LabelTableFormat format{};
  auto t = readLabelTableFile(path, &format);
  REQUIRE(t.ok());
  CHECK(format == LabelTableFormat::SlicerCsv);
  REQUIRE(t->size() == 132);
  CHECK(t->entries().front().id == 1);
  CHECK(t->entries().back().id == 132);
  const core::LabelEntry* liver = t->find(1);
  REQUIRE(liver != nullptr);
  CHECK(liver->name == "liver");
  CHECK(liver->terminology.type.scheme == "SCT");
  CHECK(liver->terminology.type.value == "10200004");
  std::size_t coded = 0;
  for (const core::LabelEntry& e : t->entries()) {
    INFO(e.id << " " << e.name);
    CHECK((e.color.r | e.color.g | e.color.b) != 0);
    CHECK(e.color.a == 255);
    if (!e.terminology.type.empty()) ++coded;
  }
  CHECK(coded == 130);
  // Uncoded and composed-code labels have no TotalSegmentator colour: the generator reimplements defaultColor in
  // Python, and this keeps the two in step.
  for (core::Label id : {core::Label(16), core::Label(24), core::Label(131)}) CHECK(t->find(id)->color == LabelTable::defaultColor(id));
  CHECK(t->find(16)->terminology.empty());  // "prostate or uterus": two organs, no single code
  const core::LabelEntry* pancreaticTumor = t->find(24);
  CHECK(pancreaticTumor->terminology.type.meaning == "Neoplasm");
  CHECK(pancreaticTumor->terminology.region.value == "15776009");
  CHECK(t->find(5)->terminology.typeModifier.meaning == "Right");  // "right kidney"
  // The resource is written in our canonical style.
  CHECK(writeSlicerCsvString(*t) == fileText(path));
}

TEST_CASE("Deeply nested terminology JSON is a parse error, not a stack overflow", "[labels][errors]") {
  ScratchDir dir("labels-deep");
  const std::string deep = "{\"SegmentationCodes\": " + std::string(200000, '[') + std::string(200000, ']') + "}";
  auto r = readTerminologyContextString(deep, "deep.json");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == core::ErrorCode::ParseError);
  CHECK(r.error().describe().find("deep.json:1: ") == 0);
  CHECK(r.error().detail.find("nests deeper") != std::string::npos);
  // Brackets inside strings do not count; modest nesting still parses as before.
  const std::string fine = "{\"AnatomicContextName\": \"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\","
                           " \"AnatomicCodes\": {\"AnatomicRegion\": []}}";
  auto ok = readTerminologyContextString(fine, "fine.json");
  INFO((ok.ok() ? std::string() : ok.error().describe()));
  CHECK(ok.ok());
  delineate::test::writeTextFile(dir / "deep.json", deep);
  auto viaDispatch = readLabelTableFile(dir / "deep.json");
  REQUIRE_FALSE(viaDispatch.ok());
}

TEST_CASE("a label map's own table is the file of the same name beside it", "[labels]") {
  ScratchDir dir("label-table-beside");
  auto touch = [&](const std::string& name) { std::FILE* f = std::fopen((dir / name).string().c_str(), "w"); std::fclose(f); };
  touch("atlas.nii.gz");
  CHECK_FALSE(findLabelTableBeside(dir / "atlas.nii.gz"));  // none: the map's ids stay unnamed
  touch("other.label");                                     // another map's table names nothing here
  CHECK_FALSE(findLabelTableBeside(dir / "atlas.nii.gz"));
  touch("atlas.csv");
  CHECK(findLabelTableBeside(dir / "atlas.nii.gz") == dir / "atlas.csv");
  touch("atlas.label");  // ITK-SNAP's first
  CHECK(findLabelTableBeside(dir / "atlas.nii.gz") == dir / "atlas.label");
  touch("seg.nrrd");
  touch("seg.txt");
  CHECK(findLabelTableBeside(dir / "seg.nrrd") == dir / "seg.txt");
  fs::create_directory(dir / "dir.tsv");  // a folder is no table
  CHECK_FALSE(findLabelTableBeside(dir / "dir.nii"));
}
