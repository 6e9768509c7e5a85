// pacs listen: our storage SCP as a receiving node, importing what it receives into the share, a series once it is
// complete (io/pacs/receiving_node.h).
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "app/cli/commands.h"
#include "io/pacs/pacs_types.h"
#include "io/pacs/receiving_node.h"
#include "io/share/share_store.h"

namespace delineate::app::cli {
namespace {

using nlohmann::json;

// One line per event on stdout, flushed (a supervisor or test reads it as it comes), from any of the SCP's threads.
class EventLog {
 public:
  EventLog(const io::ShareStore& store, bool asJson) : m_store(store), m_json(asJson) {}

  void line(const json& event, const std::string& text) {
    std::lock_guard<std::mutex> lock(m_mutex);
    std::printf("%s\n", m_json ? event.dump().c_str() : text.c_str());
    std::fflush(stdout);
  }
  void audit(const std::string& detail) {
    std::lock_guard<std::mutex> lock(m_mutex);
    cli::audit(m_store, "receive", {}, {}, 0, detail);
  }
  void auditImport(const io::StudyImportReport& report, const std::string& how) {
    std::lock_guard<std::mutex> lock(m_mutex);
    cli::auditImport(m_store, report, how);
  }

 private:
  const io::ShareStore& m_store;
  bool m_json;
  std::mutex m_mutex;
};

void onAssociation(EventLog& log, const io::AssociationEvent& e) {
  if (e.accepted && !e.ended) return;  // said once, at its end, with what it brought
  const std::string peer = "\"" + e.callingAeTitle + "\" at " + (e.peerHost.empty() ? "?" : e.peerHost);
  const std::string text =
      e.accepted ? "association from " + peer + ": " + std::to_string(e.instances) + " instances, " + e.reason
                 : "association from " + peer + " (called \"" + e.calledAeTitle + "\") rejected: " + e.reason;
  log.line(json{{"event", "association"}, {"accepted", e.accepted}, {"callingAe", e.callingAeTitle},
                {"calledAe", e.calledAeTitle}, {"host", e.peerHost}, {"instances", e.instances}, {"reason", e.reason}},
           text);
  log.audit(text);
}

void onRefused(EventLog& log, const io::ReceivedInstance& r, std::uint16_t status, const std::string& reason) {
  const std::string text = "instance refused from \"" + r.callingAeTitle + "\" at " + r.peerHost + ": " + reason;
  log.line(json{{"event", "refused"}, {"callingAe", r.callingAeTitle}, {"host", r.peerHost}, {"status", status},
                {"sopInstanceUid", r.sopInstanceUid.substr(0, 80)}, {"reason", reason}},
           text);
  log.audit(text);
}

void onSeries(EventLog& log, const io::SpooledSeriesImport& s) {
  json event{{"event", "series"},      {"studyInstanceUid", s.studyInstanceUid}, {"seriesInstanceUid", s.seriesInstanceUid},
             {"instances", s.instances}, {"imported", s.imported}};
  std::string text;
  if (s.imported) {
    json series = json::array();
    int copied = 0;
    std::string where;
    for (const auto& r : s.report->series) {
      series.push_back({{"study", r.study}, {"series", r.series}, {"files", r.files}, {"copied", r.copied},
                        {"importedBefore", r.manifestExisted}});
      copied += r.copied;
      where += (where.empty() ? "" : ", ") + r.study + " / " + r.series;
    }
    event["series"] = series;
    text = "imported " + std::to_string(s.instances) + " instances of series " + s.seriesInstanceUid + " (" +
           std::to_string(copied) + " files copied) into " + where;
    log.auditImport(*s.report, "received over DIMSE");
  } else if (s.alreadyOnShare) {
    event["alreadyOnShare"] = true;
    text = "series " + s.seriesInstanceUid + ": all " + std::to_string(s.instances) +
           " instances received are on the share already (imported before); removed from the spool";
  } else {
    event["error"] = s.error;
    event["willRetry"] = s.willRetry;
    text = "not imported: series " + s.seriesInstanceUid + " (" + std::to_string(s.instances) + " instances): " +
           s.error + (s.willRetry ? " (kept in the spool; tried again after the idle time)"
                                  : " (kept in the spool until a new instance arrives or the next start)");
  }
  for (const auto& w : s.report ? s.report->warnings : std::vector<std::string>{})
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  log.line(event, text);
}

}  // namespace

int runPacsListen(const PacsOptions& o) {
  const std::string command = "pacs listen";
  if (!io::isAeTitle(o.callingAe)) return usageError(command, "'" + o.callingAe + "' is not an AE title");
  for (const auto& ae : o.acceptAes)
    if (!io::isAeTitle(ae)) return usageError(command, "--accept '" + ae + "' is not an AE title");
  if (o.tls && (o.certFile.empty() || o.tlsKeyFile.empty()))
    return usageError(command, "--tls needs --cert and --key (our certificate and its private key)");
  if (!o.tls && (!o.caFile.empty() || !o.certFile.empty() || !o.tlsKeyFile.empty()))
    return usageError(command, "--ca, --cert and --key go with --tls");

  auto store = io::ShareStore::open(o.share);
  if (!store) return fileError(store.error());
  io::ReceivingNodeSettings settings;
  if (int rc = readDeidentifyOption(*store, o.deidentify, o.pseudonymKeyFile, command, settings.deidentify)) return rc;
  settings.scp.aeTitle = o.callingAe;
  settings.scp.port = o.port;
  settings.scp.bindAddress = o.bind;
  settings.scp.acceptedCallingAeTitles = o.acceptAes;
  settings.scp.tls.enabled = o.tls;
  settings.scp.tls.caFile = o.caFile;
  settings.scp.tls.certificateFile = o.certFile;
  settings.scp.tls.privateKeyFile = o.tlsKeyFile;
  settings.scp.acseTimeoutSeconds = std::min(o.timeout, 30);
  settings.scp.dimseTimeoutSeconds = o.timeout;
  settings.spoolFolder = o.spool;
  settings.idleSeconds = o.idleSeconds;

  EventLog log(*store, o.json);
  io::ReceivingNode::Handlers handlers;
  handlers.association = [&log](const io::AssociationEvent& e) { onAssociation(log, e); };
  handlers.refused = [&log](const io::ReceivedInstance& r, std::uint16_t status, const std::string& reason) {
    onRefused(log, r, status, reason);
  };
  handlers.series = [&log](const io::SpooledSeriesImport& s) { onSeries(log, s); };

  InterruptSink interrupt;  // Ctrl-C or SIGTERM: stop listening; what is spooled stays for the next start
  auto node = io::ReceivingNode::start(*store, settings, handlers);
  if (!node) return fileError(node.error());
  log.line(json{{"event", "listening"}, {"aeTitle", o.callingAe}, {"bind", o.bind}, {"port", (*node)->port()},
                {"tls", o.tls}, {"spool", (*node)->spoolFolder()}, {"resumedSeries", (*node)->resumedSeries()},
                {"idleSeconds", o.idleSeconds}},
           "listening as " + o.callingAe + " on " + o.bind + ":" + std::to_string((*node)->port()) +
               (o.tls ? " (TLS)" : "") + ", spool " + (*node)->spoolFolder() + " (" +
               std::to_string((*node)->resumedSeries()) + " series resumed), a series is complete after " +
               std::to_string(o.idleSeconds) + " s without a new instance");

  while (!interrupt.cancelled()) {
    (*node)->importComplete(&interrupt);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  (*node)->stop();
  const int left = (*node)->spooledSeries();
  log.line(json{{"event", "stopped"}, {"spooledSeries", left}},
           "stopped: " + std::to_string(left) + " series left in the spool for the next start");
  return 0;
}

}  // namespace delineate::app::cli
