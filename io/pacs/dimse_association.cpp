#include "io/pacs/dimse_association_internal.h"

#include <dcmtk/dcmdata/dcuid.h>
#include <dcmtk/dcmtls/tlslayer.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "io/pacs/dimse_client.h"

namespace delineate::io::detail {
namespace {
using core::ErrorCode;

constexpr long kMaxReceivePdu = 65536;  // a larger PDU than DCMTK's 16 KB default: fewer round trips per image

std::string oneLine(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == ' ' && i > 0 && s[i - 1] == ' ')) out += s[i];
  return out;
}

bool readable(const std::string& path) {
  std::ifstream in(path);
  return in.good();
}
}  // namespace

void disableNagleForDimse() {
  // DCMTK leaves Nagle's algorithm on unless $TCP_NODELAY says otherwise (read at each connection). A C-STORE
  // response is written in more than one send(); with Nagle the second waits for the peer's delayed ACK (40 ms on
  // Linux), one such wait per instance: 512 slices took 29 s instead of under 2 (bench_pacs.sh). A value the user
  // set is kept.
  static std::once_flag once;
  std::call_once(once, [] { ::setenv("TCP_NODELAY", "1", 0); });
}

T_DIMSE_C_StoreRSP storeResponseFor(const T_DIMSE_C_StoreRQ& request, DIC_US status) {
  T_DIMSE_C_StoreRSP response{};
  response.MessageIDBeingRespondedTo = request.MessageID;
  response.DataSetType = DIMSE_DATASET_NULL;
  response.DimseStatus = status;
  OFStandard::strlcpy(response.AffectedSOPClassUID, request.AffectedSOPClassUID, sizeof response.AffectedSOPClassUID);
  OFStandard::strlcpy(response.AffectedSOPInstanceUID, request.AffectedSOPInstanceUID,
                      sizeof response.AffectedSOPInstanceUID);
  response.opts = O_STORE_AFFECTEDSOPCLASSUID | O_STORE_AFFECTEDSOPINSTANCEUID;
  return response;
}

std::string conditionText(const OFCondition& cond) { return oneLine(cond.text()); }

std::vector<std::string> uncompressedTransferSyntaxes() {
  return {UID_LittleEndianExplicitTransferSyntax, UID_LittleEndianImplicitTransferSyntax};
}

std::vector<std::string> compressedTransferSyntaxes() {
  return {UID_JPEGProcess14SV1TransferSyntax, UID_JPEGProcess1TransferSyntax, UID_JPEGProcess2_4TransferSyntax,
          UID_JPEGLSLosslessTransferSyntax,   UID_JPEGLSLossyTransferSyntax,  UID_JPEG2000LosslessOnlyTransferSyntax,
          UID_JPEG2000TransferSyntax,         UID_RLELosslessTransferSyntax,  UID_DeflatedExplicitVRLittleEndianTransferSyntax};
}

core::Error DimseAssociation::error(const std::string& step, const std::string& what) const {
  return core::makeError(ErrorCode::ReadFailed, m_peer.describe(), step + ": " + what);
}

core::Error DimseAssociation::error(const std::string& step, const OFCondition& cond) const {
  std::string what = conditionText(cond);
  if (cond == DIMSE_NODATAAVAILABLE)
    what = "no answer within " + std::to_string(m_peer.dimseTimeoutSeconds) + " s (DIMSE timeout)";
  else if (cond == DUL_PEERABORTEDASSOCIATION)
    what = "the peer aborted the association";
  else if (cond == DUL_PEERREQUESTEDRELEASE)
    what = "the peer released the association before answering";
  return error(step, what);
}

core::Result<std::unique_ptr<DimseAssociation>> DimseAssociation::open(const DimseNode& peer,
                                                                         const std::string& callingAe,
                                                                         const std::vector<ProposedContext>& contexts) {
  const auto fail = [&](const std::string& step, const std::string& what) {
    return core::makeError(ErrorCode::ReadFailed, peer.describe(), step + ": " + what);
  };
  if (!isAeTitle(peer.aeTitle)) return fail("association", "\"" + peer.aeTitle + "\" is not an AE title");
  if (!isAeTitle(callingAe)) return fail("association", "our AE title \"" + callingAe + "\" is not an AE title");
  if (peer.host.empty() || peer.port < 1 || peer.port > 65535) return fail("connect", "no host or port");
  if (contexts.empty() || contexts.size() > 128) return fail("association", "1..128 presentation contexts needed");

  disableNagleForDimse();
  std::unique_ptr<DimseAssociation> a(new DimseAssociation);
  a->m_peer = peer;
  // The TCP connect timeout is a DCMTK global; every association here sets the same kind of value.
  dcmConnectionTimeout.set(std::max(1, peer.connectTimeoutSeconds));
  OFCondition cond = ASC_initializeNetwork(NET_REQUESTOR, 0, std::max(1, peer.acseTimeoutSeconds), &a->m_net);
  if (cond.bad()) return fail("connect", conditionText(cond));

  if (peer.tls.enabled) {
    if (peer.tls.caFile.empty())
      return fail("TLS", "no certificate authority given to verify the peer's certificate with");
    for (const std::string* f : {&peer.tls.caFile, &peer.tls.certificateFile, &peer.tls.privateKeyFile})
      if (!f->empty() && !readable(*f)) return core::makeError(ErrorCode::NotFound, *f, "cannot read this TLS file");
    auto* tls = new DcmTLSTransportLayer(NET_REQUESTOR, nullptr, OFTrue);
    // BCP 195: TLS 1.2+, its cipher suites; the peer's certificate must chain to the CA given.
    if (OFCondition c = tls->setTLSProfile(TSP_Profile_BCP195); c.bad()) {
      delete tls;
      return fail("TLS", conditionText(c));
    }
    if (OFCondition c = tls->activateCipherSuites(); c.bad()) {
      delete tls;
      return fail("TLS", conditionText(c));
    }
    if (tls->addTrustedCertificateFile(peer.tls.caFile.c_str(), DCF_Filetype_PEM).bad()) {
      delete tls;
      return core::makeError(ErrorCode::ParseError, peer.tls.caFile, "not a PEM certificate file");
    }
    if (!peer.tls.certificateFile.empty()) {
      if (tls->setPrivateKeyFile(peer.tls.privateKeyFile.c_str(), DCF_Filetype_PEM).bad() ||
          tls->setCertificateFile(peer.tls.certificateFile.c_str(), DCF_Filetype_PEM).bad() ||
          !tls->checkPrivateKeyMatchesCertificate()) {
        delete tls;
        return core::makeError(ErrorCode::ParseError, peer.tls.certificateFile,
                               "our certificate and private key (" + peer.tls.privateKeyFile +
                                   ") cannot be read or do not match");
      }
    }
    tls->setCertificateVerification(DCV_requireCertificate);
    cond = ASC_setTransportLayer(a->m_net, tls, 1);  // the network owns it now
    if (cond.bad()) return fail("TLS", conditionText(cond));
  }

  T_ASC_Parameters* params = nullptr;
  cond = ASC_createAssociationParameters(&params, kMaxReceivePdu);
  if (cond.bad()) return fail("association", conditionText(cond));
  ASC_setAPTitles(params, callingAe.c_str(), peer.aeTitle.c_str(), nullptr);
  const std::string address = peer.host + ":" + std::to_string(peer.port);
  ASC_setPresentationAddresses(params, "localhost", address.c_str());
  if (peer.tls.enabled) ASC_setTransportLayerType(params, OFTrue);
  T_ASC_PresentationContextID id = 1;
  for (const ProposedContext& c : contexts) {
    std::vector<const char*> syntaxes;
    for (const std::string& s : c.transferSyntaxes) syntaxes.push_back(s.c_str());
    cond = ASC_addPresentationContext(params, id, c.abstractSyntax.c_str(), syntaxes.data(),
                                      static_cast<int>(syntaxes.size()), c.role);
    if (cond.bad()) {
      ASC_destroyAssociationParameters(&params);
      return fail("association", conditionText(cond));
    }
    id = static_cast<T_ASC_PresentationContextID>(id + 2);
  }

  cond = ASC_requestAssociation(a->m_net, params, &a->m_assoc);
  if (cond.bad()) {
    if (cond == DUL_ASSOCIATIONREJECTED) {
      T_ASC_RejectParameters rej;
      ASC_getRejectParameters(params, &rej);
      OFString text;
      ASC_printRejectParameters(text, &rej);
      return fail("association", "rejected by the peer (" + oneLine(text.c_str()) + ")");
    }
    const std::string text = conditionText(cond);
    if (cond.code() == DULC_TCPINITERROR) return fail("connect", "cannot reach the peer (" + text + ")");
    if (peer.tls.enabled && (text.find("TLS") != std::string::npos || text.find("certificate") != std::string::npos ||
                             text.find("SSL") != std::string::npos || text.find("secure") != std::string::npos))
      return fail("TLS", "the handshake failed: the peer's certificate is not signed by " + peer.tls.caFile +
                             ", or the peer refused ours (" + text + ")");
    return fail("association", text);
  }
  if (ASC_countAcceptedPresentationContexts(a->m_assoc->params) == 0) {
    a->abort();
    return fail("association", "the peer accepted none of the presentation contexts we proposed");
  }
  return a;
}

DimseAssociation::~DimseAssociation() {
  if (m_assoc) {
    if (!m_ended) ASC_abortAssociation(m_assoc);
    ASC_destroyAssociation(&m_assoc);
  }
  if (m_net) ASC_dropNetwork(&m_net);
}

T_ASC_PresentationContextID DimseAssociation::contextFor(const std::string& abstractSyntax,
                                                         const std::string& transferSyntax) const {
  if (!m_assoc) return 0;
  if (transferSyntax.empty()) return ASC_findAcceptedPresentationContextID(m_assoc, abstractSyntax.c_str());
  // Exact: the context accepted with this very transfer syntax.
  for (int i = 0; i < ASC_countPresentationContexts(m_assoc->params); ++i) {
    T_ASC_PresentationContext pc;
    if (ASC_getPresentationContext(m_assoc->params, i, &pc).bad()) continue;
    if (pc.resultReason == ASC_P_ACCEPTANCE && abstractSyntax == pc.abstractSyntax &&
        transferSyntax == pc.acceptedTransferSyntax)
      return pc.presentationContextID;
  }
  return 0;
}

std::string DimseAssociation::transferSyntaxOf(T_ASC_PresentationContextID id) const {
  T_ASC_PresentationContext pc;
  if (!m_assoc || ASC_findAcceptedPresentationContext(m_assoc->params, id, &pc).bad()) return {};
  return pc.acceptedTransferSyntax;
}

int DimseAssociation::acceptedContexts() const {
  return m_assoc ? ASC_countAcceptedPresentationContexts(m_assoc->params) : 0;
}

void DimseAssociation::release() {
  if (!m_assoc || m_ended) return;
  if (ASC_releaseAssociation(m_assoc).bad()) ASC_abortAssociation(m_assoc);
  m_ended = true;
}

void DimseAssociation::abort() {
  if (!m_assoc || m_ended) return;
  ASC_abortAssociation(m_assoc);
  m_ended = true;
}

}  // namespace delineate::io::detail
