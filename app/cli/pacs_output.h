#pragma once
// What the pacs commands share, whichever protocol they speak (pacs_commands.cpp): the peer from the options, the
// match table, and the end of a retrieve (the summary, then the import into the share with --share).

#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "core/progress.h"
#include "io/pacs/pacs_types.h"

namespace delineate::app::cli {

// --peer AE@HOST:PORT and the TLS and timeout options; exit code 2 (usage) with the message printed on failure.
int dimseNodeFrom(const PacsOptions& o, const std::string& command, io::DimseNode& node);
// The query keys of pacs find (--level: the QueryLevel through `level`).
io::QueryKeys queryKeysFrom(const PacsOptions& o, io::QueryLevel& level);
// The matches as a table (text) or a JSON array (member names as in io::QueryMatch).
void printMatches(const std::vector<io::QueryMatch>& matches, bool json);
// After a retrieve into o.output: the summary (text or JSON) and, with --share, the import. The exit code.
int finishRetrieve(const PacsOptions& o, const std::string& command, const std::string& peer,
                   const io::RetrieveResult& result);

// Cancel on SIGINT/SIGTERM, and progress on stderr when it is a terminal.
class PacsProgress final : public core::ProgressSink {
 public:
  void report(double fraction, const std::string& stage) override;
  bool cancelled() const override { return m_interrupt.cancelled(); }
  int exitCode() const { return m_interrupt.exitCode(); }

 private:
  InterruptSink m_interrupt;
  int m_lastPercent = -1;
};

}  // namespace delineate::app::cli
