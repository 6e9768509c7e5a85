// CTest registers every TEST_CASE by name through catch_discover_tests, and CMake cuts a name at a semicolon: the
// entry then matches no test case. Such names are refused here (and -w NoTests makes such an entry fail).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

TEST_CASE("test case names hold no semicolon (CMake would cut them and CTest would run nothing)", "[layering]") {
  const std::filesystem::path root = std::filesystem::path(DELINEATE_SOURCE_DIR) / "tests";
  // TEST_CASE( followed by one or more adjacent string literals.
  const std::regex testCase(R"(TEST_CASE\(((\s*"[^"]*")+))");
  std::size_t files = 0, cases = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".cpp") continue;
    ++files;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), testCase); it != std::sregex_iterator(); ++it) {
      ++cases;
      INFO(entry.path().filename().string() << ": " << (*it)[1].str());
      CHECK((*it)[1].str().find(';') == std::string::npos);
    }
  }
  CHECK(files > 10);
  CHECK(cases > 100);
}
