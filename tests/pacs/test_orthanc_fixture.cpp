// The pacs suite's peer: a real Orthanc, started per test on free loopback ports.
#include <catch2/catch.hpp>

#include "tests/pacs/orthanc_server.h"

namespace delineate::test {

TEST_CASE("Orthanc starts on its own ports, takes the CT series over REST and answers DCMTK's echoscu", "[pacs]") {
  if (!orthancForTests()) return;
  const auto files = crlmSeriesFiles();
  if (files.empty()) return;
  OrthancServer orthanc;
  orthanc.start();
  orthanc.upload(files);
  CHECK(orthanc.get("/statistics").find("\"CountInstances\" : 41") != std::string::npos);
  std::string out;
  CHECK(runCommand("echoscu -aet ANYONE -aec " + orthanc.aeTitle() + " 127.0.0.1 " + std::to_string(orthanc.dicomPort()),
                   &out) == 0);
  orthanc.stop();
  CHECK_FALSE(orthanc.running());
}

}  // namespace delineate::test
