#pragma once
// One association as a service user, on DCMTK's ASC/DIMSE layer (not DcmSCU: DcmSCU keeps the A-ASSOCIATE-RJ's
// reason to itself, and a user must be told "calling AE title not recognised", not "association rejected").
// Internal to io/pacs.

#include <dcmtk/config/osconfig.h>
#include <dcmtk/dcmnet/assoc.h>
#include <dcmtk/dcmnet/dimse.h>

#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "io/pacs/pacs_types.h"

namespace delineate::io::detail {

struct ProposedContext {
  std::string abstractSyntax;
  std::vector<std::string> transferSyntaxes;
  T_ASC_SC_ROLE role = ASC_SC_ROLE_DEFAULT;
};

class DimseAssociation {
 public:
  // Connects, negotiates TLS when the node asks for it, and requests the association. Errors name the peer, the
  // step ("connect", "TLS", "association") and the peer's answer (the rejection's result, source and reason).
  static core::Result<std::unique_ptr<DimseAssociation>> open(const DimseNode& peer, const std::string& callingAe,
                                                              const std::vector<ProposedContext>& contexts);
  ~DimseAssociation();  // aborts an association that was not released
  DimseAssociation(const DimseAssociation&) = delete;
  DimseAssociation& operator=(const DimseAssociation&) = delete;

  T_ASC_Association* get() const { return m_assoc; }
  // The accepted context for this abstract syntax (and transfer syntax, when given: exact match only), or 0.
  T_ASC_PresentationContextID contextFor(const std::string& abstractSyntax, const std::string& transferSyntax = {}) const;
  // The accepted transfer syntax of a context ("" when none).
  std::string transferSyntaxOf(T_ASC_PresentationContextID id) const;
  int acceptedContexts() const;
  DIC_US nextMessageId() { return ++m_messageId; }
  int dimseTimeout() const { return m_peer.dimseTimeoutSeconds; }

  void release();  // A-RELEASE (best effort: a peer that does not answer is aborted)
  void abort();

  // An Error about this peer: "<step>: <what>".
  core::Error error(const std::string& step, const std::string& what) const;
  core::Error error(const std::string& step, const OFCondition& cond) const;

 private:
  DimseAssociation() = default;
  DimseNode m_peer;
  T_ASC_Network* m_net = nullptr;
  T_ASC_Association* m_assoc = nullptr;
  DIC_US m_messageId = 0;
  bool m_ended = false;
};

// Turns Nagle's algorithm off for DCMTK's sockets ($TCP_NODELAY=1 unless set), once per process: every association,
// ours as a user and our storage SCP's, needs it (see the .cpp for the measured reason).
void disableNagleForDimse();

// The C-STORE-RSP to `request` with `status` (its SOP class and instance echoed): what our storage SCP and a C-GET
// send back for each instance they receive.
T_DIMSE_C_StoreRSP storeResponseFor(const T_DIMSE_C_StoreRQ& request, DIC_US status);

// DCMTK's condition text on one line.
std::string conditionText(const OFCondition& cond);

// The transfer syntaxes we take for images: the uncompressed ones (one context) and each compressed one on a context
// of its own, so a PACS can send what it stores unchanged.
std::vector<std::string> uncompressedTransferSyntaxes();
std::vector<std::string> compressedTransferSyntaxes();

}  // namespace delineate::io::detail
