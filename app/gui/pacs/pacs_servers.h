#pragma once
// The PACS servers the window knows (issue 42, item 6): a DIMSE peer (AE title, host, port, TLS) or a DICOMweb
// service (URL, basic or bearer authentication, TLS), kept in the settings (QSettings "pacs/servers") without their
// secrets. A password or token lives in the desktop keyring (QtKeychain: the Secret Service, KWallet), never in the
// settings file; where no keyring answers it is kept for this session only, and the user is told so.

#include <QList>
#include <QString>

#include "io/pacs/pacs_types.h"

namespace delineate::app::gui {

struct PacsServer {
  enum class Protocol { Dimse, DicomWeb };
  enum class Retrieval { Get, Move };  // DIMSE: C-GET, or C-MOVE to our own storage SCP started for the transfer
  enum class Auth { None, Basic, Bearer };

  QString name;  // unique among the servers (case-insensitive), shown in lists; the keyring entry's key
  Protocol protocol = Protocol::Dimse;
  // DIMSE
  QString aeTitle, host;
  int port = 104;
  QString callingAe = QStringLiteral("DELINEATE");  // who we are when we call
  Retrieval retrieval = Retrieval::Get;
  QString moveAe;    // C-MOVE: our AE title as the PACS knows it (empty: callingAe)
  int movePort = 11112;  // C-MOVE: the port our storage SCP listens on
  // DICOMweb
  QString url;  // ".../dicom-web"
  Auth auth = Auth::None;
  QString user;  // basic authentication
  // TLS (DIMSE or https://): the certificate authorities (PEM; empty for https: the system's), our certificate and key
  bool tls = false;
  QString caFile, certificateFile, privateKeyFile;
  int inFlight = 4;  // associations or requests in flight for a retrieve

  // "ORTHANC@127.0.0.1:4242" or the URL: how lists and errors show it besides its name.
  QString address() const;
  // Whether the server needs a secret (a DICOMweb password or token).
  bool needsSecret() const { return protocol == Protocol::DicomWeb && auth != Auth::None; }
  // What is wrong with it, in words naming the field ("AE title 'A\B' is not an AE title"); empty when usable.
  QString problem() const;
  // The io peers, the secret filled in for DICOMweb.
  io::DimseNode dimseNode() const;
  io::DicomWebService webService(const QString& secret) const;
};

// The servers in the settings, in the order the user left them.
QList<PacsServer> pacsServers();
// Replaces the servers in the settings (never a secret). False with `error` set when one has a problem() or two
// share a name; the settings are then unchanged.
bool savePacsServers(const QList<PacsServer>& servers, QString* error = nullptr);

// The keyring: the secret of server `name` (service "Delineate PACS", key = the server's name). These wait for the
// keyring (a local event loop, a few seconds at most), so call them on the GUI thread, from a user's action.
struct SecretOutcome {
  bool ok = false;        // stored, read or removed (reading: a secret was found)
  bool inKeyring = false; // the keyring holds it (false: kept for this session only, or not found)
  QString secret;         // what was read
  QString error;          // why not, in words ("no keyring answered: ..."), empty on success
};
SecretOutcome storePacsSecret(const QString& serverName, const QString& secret);
SecretOutcome readPacsSecret(const QString& serverName);
SecretOutcome removePacsSecret(const QString& serverName);

}  // namespace delineate::app::gui
