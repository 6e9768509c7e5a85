// The classic engine's label table: what a SEG of its labels says and how its colours look (issue 23, item 11).
#include <catch2/catch.hpp>

#include <cmath>

#include "inference/classic/auto_segmenter.h"

using namespace delineate;

TEST_CASE("auto labels carry SNOMED CT codes and colours told apart at a glance", "[classic][auto]") {
  const core::LabelTable t = inference::classic::autoLabelTable();
  // Written to DICOM SEG with these codes instead of Delineate's private ones.
  struct Expected {
    core::Label id;
    const char* type;
    const char* modifier;
  };
  for (const Expected& e : {Expected{200, "38266002", ""}, Expected{201, "39607008", "7771000"},
                            Expected{202, "39607008", "24028007"}, Expected{132, "110726009", ""},
                            Expected{21, "272673000", ""}}) {
    INFO("label " << e.id);
    const core::LabelEntry* entry = t.find(e.id);
    REQUIRE(entry != nullptr);
    CHECK(entry->terminology.category.scheme == "SCT");
    CHECK(entry->terminology.type.scheme == "SCT");
    CHECK(entry->terminology.type.value == e.type);
    CHECK(entry->terminology.typeModifier.value == e.modifier);
  }
  // No two colours closer than 60 in RGB (the left lung and the airway were 37 apart, the body and bone 97 but both
  // red-brown; now every pair differs clearly).
  const auto& entries = t.entries();
  for (std::size_t i = 0; i < entries.size(); ++i)
    for (std::size_t j = i + 1; j < entries.size(); ++j) {
      const core::Rgba& a = entries[i].color;
      const core::Rgba& b = entries[j].color;
      const double d = std::sqrt(std::pow(a.r - b.r, 2.0) + std::pow(a.g - b.g, 2.0) + std::pow(a.b - b.b, 2.0));
      INFO(entries[i].name << " vs " << entries[j].name);
      CHECK(d > 60);
    }
}
