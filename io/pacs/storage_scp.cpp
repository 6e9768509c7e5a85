#include "io/pacs/storage_scp.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <list>
#include <memory>
#include <atomic>
#include <mutex>
#include <thread>

#include "dcmtk/config/osconfig.h"  // must come first among DCMTK's headers
#include "dcmtk/dcmdata/dcdeftag.h"
#include "dcmtk/dcmdata/dcfilefo.h"
#include "dcmtk/dcmdata/dcostrmf.h"
#include "dcmtk/dcmdata/dcuid.h"
#include "dcmtk/dcmnet/assoc.h"
#include "dcmtk/dcmnet/dimse.h"
#include "dcmtk/dcmnet/diutil.h"
#include "dcmtk/dcmnet/dul.h"
#include "dcmtk/dcmtls/tlslayer.h"

#include "io/pacs/dimse_association_internal.h"
#include "io/pacs/instance_folder.h"

namespace delineate::io {
namespace {

namespace fs = std::filesystem;
using core::ErrorCode;
using core::makeError;

constexpr int kMaxAssociations = 16;  // served at once; more are rejected as "local limit exceeded" (transient)
constexpr int kPollSeconds = 1;       // how often an idle accept loop or association looks at stop()

// Offered in this order: a compressed syntax the SCU proposes is taken as it is (its bytes stored unchanged, never
// decompressed by the sender for us), then the uncompressed ones.
const char* kStorageTransferSyntaxes[] = {
    UID_JPEGProcess14SV1TransferSyntax,          UID_JPEGProcess14TransferSyntax,
    UID_JPEGProcess1TransferSyntax,              UID_JPEGProcess2_4TransferSyntax,
    UID_JPEGLSLosslessTransferSyntax,            UID_JPEGLSLossyTransferSyntax,
    UID_JPEG2000LosslessOnlyTransferSyntax,      UID_JPEG2000TransferSyntax,
    UID_JPEG2000Part2MulticomponentImageCompressionLosslessOnlyTransferSyntax,
    UID_JPEG2000Part2MulticomponentImageCompressionTransferSyntax,
    UID_RLELosslessTransferSyntax,               UID_DeflatedExplicitVRLittleEndianTransferSyntax,
    UID_LittleEndianExplicitTransferSyntax,      UID_LittleEndianImplicitTransferSyntax,
    UID_BigEndianExplicitTransferSyntax,
};
const char* kEchoTransferSyntaxes[] = {UID_LittleEndianExplicitTransferSyntax,
                                             UID_LittleEndianImplicitTransferSyntax,
                                             UID_BigEndianExplicitTransferSyntax};

std::string conditionText(const OFCondition& c) { return c.text() ? c.text() : "unknown DCMTK condition"; }

std::string trimmed(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == ' ' || s.back() == '\0')) s.pop_back();
  std::size_t start = 0;
  while (start < s.size() && s[start] == ' ') ++start;
  return s.substr(start);
}

std::string statusHex(std::uint16_t status) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%04X", status);
  return buffer;
}

}  // namespace

struct StorageScp::Impl {
  StorageScpSettings settings;
  Handlers handlers;
  T_ASC_Network* network = nullptr;
  DcmTLSTransportLayer* tls = nullptr;  // owned by `network` once set
  int port = 0;
  std::string tempFolder;  // owner-only: datasets are received here, then stored through their InstanceFolder
  std::atomic<bool> stopping{false};
  std::thread acceptThread;
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  };
  std::mutex workersMutex;
  std::list<Worker> workers;
  std::atomic<int> active{0};
  std::atomic<std::uint64_t> tempCounter{0};
  std::mutex handlerMutex;  // handlers run one at a time

  void acceptLoop();
  void serve(T_ASC_Association* assoc);
  void reapWorkers(bool all);
  // Answers one C-STORE request; false when the association cannot go on (a network failure).
  bool store(T_ASC_Association* assoc, T_ASC_PresentationContextID presId, T_DIMSE_C_StoreRQ& request,
             const std::string& callingAe, const std::string& host, int& instances, std::string& why);
  void report(const AssociationEvent& e) {
    std::lock_guard<std::mutex> lock(handlerMutex);
    if (handlers.association) handlers.association(e);
  }
  void reportRefused(const ReceivedInstance& r, std::uint16_t status, const std::string& reason) {
    std::lock_guard<std::mutex> lock(handlerMutex);
    if (handlers.refused) handlers.refused(r, status, reason);
  }
  void finish(T_ASC_Association*& assoc) {
    ASC_dropSCPAssociation(assoc);
    ASC_destroyAssociation(&assoc);
  }
};

core::Result<std::unique_ptr<StorageScp>> StorageScp::start(const StorageScpSettings& settings, Handlers handlers) {
  detail::disableNagleForDimse();  // our C-STORE responses, as for the calls we make (dimse_association.cpp)
  const std::string where = settings.aeTitle + "@" + settings.bindAddress + ":" + std::to_string(settings.port);
  if (!isAeTitle(settings.aeTitle))
    return makeError(ErrorCode::InvalidArgument, settings.aeTitle, "not an AE title (1..16 characters, no backslash)");
  if (settings.port < 0 || settings.port > 65535)
    return makeError(ErrorCode::InvalidArgument, where, "the port must be 0..65535");
  for (const auto& ae : settings.acceptedCallingAeTitles)
    if (!isAeTitle(ae)) return makeError(ErrorCode::InvalidArgument, ae, "not an AE title (in the accepted calling AE titles)");
  if (settings.tls.enabled && (settings.tls.certificateFile.empty() || settings.tls.privateKeyFile.empty()))
    return makeError(ErrorCode::InvalidArgument, where, "TLS needs our certificate and private key (PEM files)");

  std::unique_ptr<StorageScp> scp(new StorageScp());
  scp->m_impl = std::make_unique<Impl>();
  Impl& d = *scp->m_impl;
  d.settings = settings;
  d.handlers = std::move(handlers);

  // Our own listening socket: DCMTK 3.6.7 binds every address and cannot say which port 0 became, so the socket is
  // made here (bound to bindAddress, port 0 allowed) and put in place of the one DCMTK made (same descriptor number).
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(settings.port));
  if (::inet_pton(AF_INET, settings.bindAddress.c_str(), &address.sin_addr) != 1)
    return makeError(ErrorCode::InvalidArgument, where, "\"" + settings.bindAddress + "\" is not an IPv4 address");
  const int listenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listenFd < 0) return makeError(ErrorCode::WriteFailed, where, std::string("socket(): ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(listenFd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(listenFd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listenFd, 64) != 0) {
    const int e = errno;
    ::close(listenFd);
    return makeError(ErrorCode::WriteFailed, where,
                     e == EADDRINUSE ? std::string("the port is in use") : std::string("cannot listen: ") + std::strerror(e));
  }
  socklen_t length = sizeof address;
  ::getsockname(listenFd, reinterpret_cast<sockaddr*>(&address), &length);
  d.port = ntohs(address.sin_port);

  // Peers are named by their address: a reverse DNS lookup per association can stall on a hospital's DNS, and the
  // audit trail wants the address anyway. (A process-wide DCMTK setting; nothing of ours wants host names.)
  dcmDisableGethostbyaddr.set(OFTrue);
  OFCondition c = ASC_initializeNetwork(NET_ACCEPTOR, 0, settings.acseTimeoutSeconds, &d.network);
  if (c.bad()) {
    ::close(listenFd);
    return makeError(ErrorCode::WriteFailed, where, "cannot start DCMTK's network: " + conditionText(c));
  }
  const int dcmtkFd = static_cast<int>(DUL_networkSocket(d.network->network));
  if (dcmtkFd < 0 || ::dup2(listenFd, dcmtkFd) < 0) {
    ::close(listenFd);
    ASC_dropNetwork(&d.network);
    return makeError(ErrorCode::WriteFailed, where, "cannot take over DCMTK's listening socket");
  }
  ::close(listenFd);
  ::fcntl(dcmtkFd, F_SETFD, FD_CLOEXEC);  // dup2 clears it; child processes must not keep our port

  if (settings.tls.enabled) {
    auto* layer = new DcmTLSTransportLayer(NET_ACCEPTOR, nullptr, OFTrue);
    const auto fail = [&](const std::string& what) -> core::Error {
      delete layer;
      ASC_dropNetwork(&d.network);
      return makeError(ErrorCode::InvalidArgument, where, "TLS: " + what);
    };
    if ((c = layer->setTLSProfile(TSP_Profile_BCP195)).bad()) return fail("the BCP 195 profile: " + conditionText(c));
    if ((c = layer->activateCipherSuites()).bad()) return fail("cipher suites: " + conditionText(c));
    if ((c = layer->setPrivateKeyFile(settings.tls.privateKeyFile.c_str(), DCF_Filetype_PEM)).bad())
      return fail("cannot load the private key " + settings.tls.privateKeyFile + ": " + conditionText(c));
    if ((c = layer->setCertificateFile(settings.tls.certificateFile.c_str(), DCF_Filetype_PEM)).bad())
      return fail("cannot load the certificate " + settings.tls.certificateFile + ": " + conditionText(c));
    if (!layer->checkPrivateKeyMatchesCertificate())
      return fail("the private key " + settings.tls.privateKeyFile + " does not match the certificate " +
                  settings.tls.certificateFile);
    if (!settings.tls.caFile.empty()) {
      if ((c = layer->addTrustedCertificateFile(settings.tls.caFile.c_str(), DCF_Filetype_PEM)).bad())
        return fail("cannot load the certificate authorities " + settings.tls.caFile + ": " + conditionText(c));
      layer->setCertificateVerification(DCV_requireCertificate);
    } else {
      layer->setCertificateVerification(DCV_ignoreCertificate);  // no CA given: clients are not asked for one
    }
    if ((c = ASC_setTransportLayer(d.network, layer, 1)).bad()) return fail(conditionText(c));
    d.tls = layer;
  }

  if (!settings.receiveFolder.empty()) {
    std::error_code ec;
    fs::create_directories(settings.receiveFolder, ec);
    fs::permissions(settings.receiveFolder, fs::perms::owner_all, ec);
  }
  std::string pattern =
      ((settings.receiveFolder.empty() ? fs::temp_directory_path() : fs::path(settings.receiveFolder)) /
       "delineate-scp-XXXXXX")
          .string();
  if (!::mkdtemp(pattern.data())) {  // mode 0700: received datasets are patient data
    ASC_dropNetwork(&d.network);
    return makeError(ErrorCode::WriteFailed, pattern, std::string("cannot make a temporary folder: ") + std::strerror(errno));
  }
  d.tempFolder = pattern;
  d.acceptThread = std::thread([&d] { d.acceptLoop(); });
  return scp;
}

StorageScp::~StorageScp() { stop(); }

void StorageScp::stop() {
  if (!m_impl) return;
  Impl& d = *m_impl;
  d.stopping = true;
  if (d.acceptThread.joinable()) d.acceptThread.join();
  d.reapWorkers(true);
  if (d.network) ASC_dropNetwork(&d.network);  // closes the socket and deletes the TLS layer it owns
  d.tls = nullptr;
  if (!d.tempFolder.empty()) {
    std::error_code ec;
    fs::remove_all(d.tempFolder, ec);
    d.tempFolder.clear();
  }
}

int StorageScp::port() const { return m_impl->port; }
const std::string& StorageScp::aeTitle() const { return m_impl->settings.aeTitle; }

void StorageScp::Impl::acceptLoop() {
  while (!stopping) {
    T_ASC_Association* assoc = nullptr;
    // Non-blocking with a short poll, so that stop() is seen within about a second when nobody calls.
    OFCondition c = ASC_receiveAssociation(network, &assoc, ASC_DEFAULTMAXPDU, nullptr, nullptr,
                                           tls ? OFTrue : OFFalse, DUL_NOBLOCK, kPollSeconds);
    if (c == DUL_NOASSOCIATIONREQUEST) {
      if (assoc) ASC_destroyAssociation(&assoc);
      continue;
    }
    if (c.bad()) {
      // A TLS handshake that failed (an unknown client certificate), a request that did not arrive within the ACSE
      // timeout, a malformed PDU: the connection is closed and said.
      AssociationEvent e;
      if (assoc && assoc->params) {
        e.peerHost = trimmed(assoc->params->DULparams.callingPresentationAddress);
        e.callingAeTitle = trimmed(assoc->params->DULparams.callingAPTitle);
        e.calledAeTitle = trimmed(assoc->params->DULparams.calledAPTitle);
      }
      e.reason = (tls ? "TLS or association request failed: " : "association request failed: ") + conditionText(c);
      report(e);
      if (assoc) finish(assoc);
      continue;
    }
    reapWorkers(false);
    if (active.load() >= kMaxAssociations) {
      AssociationEvent e;
      e.peerHost = trimmed(assoc->params->DULparams.callingPresentationAddress);
      e.callingAeTitle = trimmed(assoc->params->DULparams.callingAPTitle);
      e.calledAeTitle = trimmed(assoc->params->DULparams.calledAPTitle);
      e.reason = "rejected: " + std::to_string(kMaxAssociations) + " associations are in progress already";
      T_ASC_RejectParameters rej{ASC_RESULT_REJECTEDTRANSIENT, ASC_SOURCE_SERVICEPROVIDER_PRESENTATION_RELATED,
                                 ASC_REASON_SP_PRES_LOCALLIMITEXCEEDED};
      ASC_rejectAssociation(assoc, &rej);
      report(e);
      finish(assoc);
      continue;
    }
    ++active;
    std::lock_guard<std::mutex> lock(workersMutex);
    Worker& w = workers.emplace_back();
    w.thread = std::thread([this, assoc, done = w.done] {
      serve(assoc);
      *done = true;
    });
  }
  reapWorkers(true);
}

// Joins the threads of associations that have ended (all: waits for every one).
void StorageScp::Impl::reapWorkers(bool all) {
  std::list<Worker> ended;
  {
    std::lock_guard<std::mutex> lock(workersMutex);
    for (auto it = workers.begin(); it != workers.end();) {
      if (all || *it->done) ended.splice(ended.end(), workers, it++);
      else ++it;
    }
  }
  for (auto& w : ended)
    if (w.thread.joinable()) w.thread.join();
}

void StorageScp::Impl::serve(T_ASC_Association* assoc) {
  struct Done {
    std::atomic<int>& active;
    ~Done() { --active; }
  } done{active};
  char calling[64] = {0}, called[64] = {0}, responding[64] = {0};
  ASC_getAPTitles(assoc->params, calling, sizeof calling, called, sizeof called, responding, sizeof responding);
  AssociationEvent e;
  e.callingAeTitle = trimmed(calling);
  e.calledAeTitle = trimmed(called);
  e.peerHost = trimmed(assoc->params->DULparams.callingPresentationAddress);

  const auto reject = [&](T_ASC_RejectParametersReason reason, const std::string& why) {
    T_ASC_RejectParameters rej{ASC_RESULT_REJECTEDPERMANENT, ASC_SOURCE_SERVICEUSER, reason};
    ASC_rejectAssociation(assoc, &rej);
    e.reason = why;
    report(e);
    finish(assoc);
  };
  if (e.calledAeTitle != settings.aeTitle)
    return reject(ASC_REASON_SU_CALLEDAETITLENOTRECOGNIZED,
                  "called AE title not recognised: \"" + e.calledAeTitle + "\" (we are \"" + settings.aeTitle + "\")");
  if (!settings.acceptedCallingAeTitles.empty()) {
    bool known = false;
    for (const auto& ae : settings.acceptedCallingAeTitles) known = known || ae == e.callingAeTitle;
    if (!known)
      return reject(ASC_REASON_SU_CALLINGAETITLENOTRECOGNIZED,
                    "calling AE title not recognised: \"" + e.callingAeTitle + "\" is not among the accepted ones");
  }
  const char* echo[] = {UID_VerificationSOPClass};
  OFCondition c = ASC_acceptContextsWithPreferredTransferSyntaxes(assoc->params, echo, 1, kEchoTransferSyntaxes,
                                                                  DIM_OF(kEchoTransferSyntaxes));
  if (c.good())
    c = ASC_acceptContextsWithPreferredTransferSyntaxes(assoc->params, dcmAllStorageSOPClassUIDs,
                                                        numberOfDcmAllStorageSOPClassUIDs, kStorageTransferSyntaxes,
                                                        DIM_OF(kStorageTransferSyntaxes));
  if (c.bad()) return reject(ASC_REASON_SU_NOREASON, "presentation contexts: " + conditionText(c));
  ASC_setAPTitles(assoc->params, nullptr, nullptr, settings.aeTitle.c_str());
  if (ASC_countAcceptedPresentationContexts(assoc->params) == 0)
    return reject(ASC_REASON_SU_NOREASON, "no presentation context proposed is one we accept (storage or verification)");
  if ((c = ASC_acknowledgeAssociation(assoc)).bad()) {
    e.reason = "the association's acknowledgement failed: " + conditionText(c);
    report(e);
    finish(assoc);
    return;
  }
  e.accepted = true;
  report(e);

  int instances = 0, idleSeconds = 0;
  std::string why;
  for (;;) {
    if (stopping) {
      ASC_abortAssociation(assoc);
      why = "aborted: the storage SCP is stopping";
      break;
    }
    T_DIMSE_Message message;
    T_ASC_PresentationContextID presId = 0;
    c = DIMSE_receiveCommand(assoc, DIMSE_NONBLOCKING, kPollSeconds, &presId, &message, nullptr);
    if (c == DIMSE_NODATAAVAILABLE) {
      idleSeconds += kPollSeconds;
      if (idleSeconds >= settings.dimseTimeoutSeconds) {
        ASC_abortAssociation(assoc);
        why = "aborted: nothing received for " + std::to_string(settings.dimseTimeoutSeconds) + " s (DIMSE timeout)";
        break;
      }
      continue;
    }
    idleSeconds = 0;
    if (c == DUL_PEERREQUESTEDRELEASE) {
      ASC_acknowledgeRelease(assoc);
      why = "released";
      break;
    }
    if (c == DUL_PEERABORTEDASSOCIATION) {
      why = "aborted by the peer";
      break;
    }
    if (c.bad()) {
      ASC_abortAssociation(assoc);
      why = "aborted: " + conditionText(c);
      break;
    }
    if (message.CommandField == DIMSE_C_ECHO_RQ) {
      c = DIMSE_sendEchoResponse(assoc, presId, &message.msg.CEchoRQ, STATUS_Success, nullptr);
      if (c.bad()) {
        ASC_abortAssociation(assoc);
        why = "aborted: the C-ECHO answer failed: " + conditionText(c);
        break;
      }
    } else if (message.CommandField == DIMSE_C_STORE_RQ) {
      if (!store(assoc, presId, message.msg.CStoreRQ, e.callingAeTitle, e.peerHost, instances, why)) {
        ASC_abortAssociation(assoc);
        break;
      }
    } else {
      ASC_abortAssociation(assoc);
      char field[8];
      std::snprintf(field, sizeof field, "0x%04X", static_cast<unsigned>(message.CommandField));
      why = std::string("aborted: a DIMSE command we do not serve (") + field + ")";
      break;
    }
  }
  finish(assoc);
  e.ended = true;
  e.reason = why;
  e.instances = instances;
  report(e);
}

// Only the UIDs are read from a received dataset: values longer than this (the pixel data) are left unread by the
// parse (the file's bytes are stored as they came).
constexpr Uint32 kLoadValuesUpTo = 4096;

bool StorageScp::Impl::store(T_ASC_Association* assoc, T_ASC_PresentationContextID presId, T_DIMSE_C_StoreRQ& request,
                             const std::string& callingAe, const std::string& host, int& instances, std::string& why) {
  ReceivedInstance r;
  r.callingAeTitle = callingAe;
  r.peerHost = host;
  r.sopClassUid = trimmed(request.AffectedSOPClassUID);
  r.sopInstanceUid = trimmed(request.AffectedSOPInstanceUID);
  const std::string temp = tempFolder + "/" + std::to_string(++tempCounter) + ".part";
  struct TempGuard {
    std::string path;
    ~TempGuard() { ::unlink(path.c_str()); }
  } guard{temp};

  // Bit-preserving: DCMTK writes the meta header from the request, then the dataset's bytes as they arrive.
  DcmOutputFileStream* out = nullptr;
  OFCondition c = DIMSE_createFilestream(temp.c_str(), &request, assoc, presId, 1, &out);
  if (c.bad()) {
    delete out;
    why = "aborted: cannot write a received dataset to " + tempFolder + ": " + conditionText(c);
    return false;
  }
  T_ASC_PresentationContextID dataPresId = 0;
  c = DIMSE_receiveDataSetInFile(assoc, DIMSE_NONBLOCKING, settings.dimseTimeoutSeconds, &dataPresId, out, nullptr,
                                 nullptr);
  delete out;
  if (c.bad()) {
    why = "aborted: receiving the dataset of " + r.sopInstanceUid.substr(0, 64) + " failed: " + conditionText(c);
    return false;
  }

  std::uint16_t status = STATUS_Success;
  std::string refusal;
  std::string datasetInstanceUid;
  DcmFileFormat file;
  if (dataPresId != presId) {
    status = STATUS_STORE_Error_CannotUnderstand;
    refusal = "the dataset came on another presentation context than its command";
  } else if ((c = file.loadFile(temp.c_str(), EXS_Unknown, EGL_noChange, kLoadValuesUpTo)).bad()) {
    status = STATUS_STORE_Error_CannotUnderstand;
    refusal = "the dataset cannot be parsed: " + conditionText(c);
  } else {
    DcmDataset* ds = file.getDataset();
    OFString value;
    if (ds->findAndGetOFString(DCM_SOPInstanceUID, value).good()) datasetInstanceUid = trimmed(value.c_str());
    if (ds->findAndGetOFString(DCM_StudyInstanceUID, value).good()) r.studyInstanceUid = trimmed(value.c_str());
    if (ds->findAndGetOFString(DCM_SeriesInstanceUID, value).good()) r.seriesInstanceUid = trimmed(value.c_str());
    // Names a file and folders downstream: anything but a UID is refused here, never used as a path.
    if (!isDicomUid(datasetInstanceUid)) {
      status = STATUS_STORE_Error_CannotUnderstand;
      refusal = datasetInstanceUid.empty() ? "the dataset has no SOP Instance UID"
                                           : "its SOP Instance UID \"" + datasetInstanceUid.substr(0, 80) + "\" is not a UID";
    } else if (datasetInstanceUid != r.sopInstanceUid) {
      status = STATUS_STORE_Error_DataSetDoesNotMatchSOPClass;
      refusal = "the dataset's SOP Instance UID " + datasetInstanceUid + " differs from the request's \"" +
                r.sopInstanceUid.substr(0, 80) + "\"";
    } else if (!isDicomUid(r.studyInstanceUid) || !isDicomUid(r.seriesInstanceUid)) {
      status = STATUS_STORE_Error_CannotUnderstand;
      refusal = "its Study or Series Instance UID is missing or not a UID (\"" + r.studyInstanceUid.substr(0, 80) +
                "\", \"" + r.seriesInstanceUid.substr(0, 80) + "\")";
    }
  }
  if (status == STATUS_Success) {
    InstanceFolder* folder = nullptr;
    {
      std::lock_guard<std::mutex> lock(handlerMutex);
      if (handlers.route) folder = handlers.route(callingAe, r.studyInstanceUid, r.seriesInstanceUid);
    }
    if (!folder) {
      status = STATUS_STORE_Refused_OutOfResources;
      // (path stays empty: nothing was routed)
      refusal = "no folder to store it in";
    } else {
      std::string bytes;
      std::ifstream in(temp, std::ios::binary | std::ios::ate);
      if (in) {
        bytes.resize(static_cast<std::size_t>(in.tellg()));
        in.seekg(0);
        in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      }
      if (!in) {
        status = STATUS_STORE_Refused_OutOfResources;
        refusal = "cannot read back the received dataset " + temp;
        r.path = folder->pathOf(r.sopInstanceUid);  // routed: the receiver counts it as answered
      } else {
        auto stored = folder->store(r.sopInstanceUid, bytes.data(), bytes.size());
        r.path = folder->pathOf(r.sopInstanceUid);
        if (!stored) {
          status = STATUS_STORE_Refused_OutOfResources;
          refusal = stored.error().describe();
        } else {
          r.bytes = bytes.size();
          r.duplicate = *stored != InstanceFolder::Stored::Written;
          if (*stored == InstanceFolder::Stored::DifferentAlreadyHere)
            refusal = "another instance with this SOP Instance UID is stored already; that one is kept";
        }
      }
    }
  }

  T_DIMSE_C_StoreRSP response = detail::storeResponseFor(request, status);
  if (status == STATUS_Success) {
    ++instances;
    std::lock_guard<std::mutex> lock(handlerMutex);
    if (handlers.received) handlers.received(r);
  } else {
    reportRefused(r, status, refusal + " (status " + statusHex(status) + ")");
  }
  c = DIMSE_sendStoreResponse(assoc, presId, &request, &response, nullptr);
  if (c.bad()) {
    why = "aborted: the C-STORE answer failed: " + conditionText(c);
    return false;
  }
  return true;
}

}  // namespace delineate::io
