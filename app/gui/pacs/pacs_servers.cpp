#include "app/gui/pacs/pacs_servers.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QHash>
#include <QMutex>
#include <QMutexLocker>
#include <QSet>
#include <QSettings>
#include <QTimer>
#include <QUrl>

#include <qt6keychain/keychain.h>

namespace delineate::app::gui {

namespace {

struct PacsText {
  Q_DECLARE_TR_FUNCTIONS(delineate::app::gui::PacsServer)
};

const QString kService = QStringLiteral("Delineate PACS");
// How long a keyring may take to answer. A Secret Service that is not running answers at once (no bus, nobody owns
// the name); this bounds one that hangs, and a keyring waiting for the user to unlock it.
constexpr int kKeyringTimeoutMs = 5000;

const char* protocolKey(PacsServer::Protocol p) { return p == PacsServer::Protocol::DicomWeb ? "dicomweb" : "dimse"; }
const char* retrievalKey(PacsServer::Retrieval r) { return r == PacsServer::Retrieval::Move ? "move" : "get"; }
const char* authKey(PacsServer::Auth a) {
  switch (a) {
    case PacsServer::Auth::Basic: return "basic";
    case PacsServer::Auth::Bearer: return "bearer";
    case PacsServer::Auth::None: break;
  }
  return "none";
}

io::TlsSettings tlsOf(const PacsServer& s, bool enabled) {
  io::TlsSettings tls;
  tls.enabled = enabled;
  tls.caFile = s.caFile.toStdString();
  tls.certificateFile = s.certificateFile.toStdString();
  tls.privateKeyFile = s.privateKeyFile.toStdString();
  return tls;
}

bool isHttps(const QString& url) { return url.startsWith(QLatin1String("https://"), Qt::CaseInsensitive); }

// A named file must be a readable file: said with the field's name, before any connection is tried.
QString fileProblem(const QString& field, const QString& path) {
  if (path.isEmpty()) return {};
  const QFileInfo info(path);
  if (!info.exists()) return PacsText::tr("%1 '%2' does not exist").arg(field, path);
  if (!info.isFile()) return PacsText::tr("%1 '%2' is not a file").arg(field, path);
  if (!info.isReadable()) return PacsText::tr("%1 '%2' cannot be read").arg(field, path);
  return {};
}

// Secrets the keyring would not take, for this process only (never written anywhere).
QMutex g_sessionMutex;
QHash<QString, QString>& sessionSecrets() {
  static QHash<QString, QString> secrets;
  return secrets;
}

struct JobAnswer {
  bool answered = false;  // false: the keyring did not answer within kKeyringTimeoutMs
  QKeychain::Error error = QKeychain::NoError;
  QString errorString, text;
};

// Starts `job` and waits for it in a local event loop (the Secret Service answers through GLib's main loop, which
// Qt's event dispatcher runs). The job deletes itself when it finishes, also after we stopped waiting: libsecret
// calls back into it, so it must outlive a timeout.
JobAnswer runJob(QKeychain::Job* job) {
  JobAnswer answer;
  job->setAutoDelete(true);
  job->setInsecureFallback(false);  // QtKeychain's fallback writes the secret in plain text to a settings file
  QEventLoop loop;
  QObject::connect(job, &QKeychain::Job::finished, &loop, [&answer, &loop](QKeychain::Job* done) {
    answer.answered = true;
    answer.error = done->error();
    answer.errorString = done->errorString();
    if (auto* read = qobject_cast<QKeychain::ReadPasswordJob*>(done)) answer.text = read->textData();
    loop.quit();
  });
  QTimer::singleShot(kKeyringTimeoutMs, &loop, &QEventLoop::quit);
  job->start();
  if (!answer.answered) loop.exec(QEventLoop::ExcludeUserInputEvents);
  return answer;
}

QString keyringError(const JobAnswer& a) {
  if (!a.answered) return PacsText::tr("the keyring did not answer within %1 s").arg(kKeyringTimeoutMs / 1000);
  return a.errorString.isEmpty() ? PacsText::tr("keyring error %1").arg(int(a.error)) : a.errorString;
}

}  // namespace

QString PacsServer::address() const {
  if (protocol == Protocol::DicomWeb) return url;
  return QStringLiteral("%1@%2:%3").arg(aeTitle, host).arg(port);
}

QString PacsServer::problem() const {
  if (name.trimmed().isEmpty()) return PacsText::tr("The name is empty");
  const auto aeProblem = [](const QString& field, const QString& ae) -> QString {
    if (!io::isAeTitle(ae.toStdString()))
      return PacsText::tr("%1 '%2' is not an AE title (1 to 16 characters, no backslash)").arg(field, ae);
    return {};
  };
  if (protocol == Protocol::Dimse) {
    if (QString p = aeProblem(PacsText::tr("AE title"), aeTitle); !p.isEmpty()) return p;
    if (host.trimmed().isEmpty()) return PacsText::tr("The host is empty");
    if (port < 1 || port > 65535) return PacsText::tr("Port %1 is not a port (1 to 65535)").arg(port);
    if (QString p = aeProblem(PacsText::tr("Our AE title"), callingAe); !p.isEmpty()) return p;
    if (retrieval == Retrieval::Move) {
      if (!moveAe.isEmpty())
        if (QString p = aeProblem(PacsText::tr("C-MOVE AE title"), moveAe); !p.isEmpty()) return p;
      if (movePort < 1 || movePort > 65535)
        return PacsText::tr("C-MOVE port %1 is not a port (1 to 65535)").arg(movePort);
    }
    if (tls && caFile.isEmpty()) return PacsText::tr("TLS needs the CA file the PACS's certificate chains to");
  } else {
    const QUrl parsed(url, QUrl::StrictMode);
    const bool http = url.startsWith(QLatin1String("http://"), Qt::CaseInsensitive) || isHttps(url);
    if (!http || !parsed.isValid() || parsed.host().isEmpty())
      return PacsText::tr("URL '%1' is not an http:// or https:// URL").arg(url);
    // The settings file would hold it: credentials go in the authentication fields, which keep them in the keyring.
    if (!parsed.userInfo().isEmpty())
      return PacsText::tr("URL '%1' holds a user name or password: use the authentication fields")
          .arg(parsed.toString(QUrl::RemoveUserInfo));
    if (tls && !isHttps(url)) return PacsText::tr("TLS needs an https:// URL");
    if (auth == Auth::Basic && user.isEmpty()) return PacsText::tr("Basic authentication needs a user name");
  }
  if (tls || (protocol == Protocol::DicomWeb && isHttps(url))) {
    if (QString p = fileProblem(PacsText::tr("CA file"), caFile); !p.isEmpty()) return p;
    if (QString p = fileProblem(PacsText::tr("Our certificate"), certificateFile); !p.isEmpty()) return p;
    if (QString p = fileProblem(PacsText::tr("Our private key"), privateKeyFile); !p.isEmpty()) return p;
    if (certificateFile.isEmpty() != privateKeyFile.isEmpty())
      return certificateFile.isEmpty() ? PacsText::tr("Our private key needs our certificate")
                                       : PacsText::tr("Our certificate needs its private key");
  }
  if (inFlight < 1 || inFlight > 16) return PacsText::tr("Requests in flight %1 is not between 1 and 16").arg(inFlight);
  return {};
}

io::DimseNode PacsServer::dimseNode() const {
  io::DimseNode node;
  node.aeTitle = aeTitle.toStdString();
  node.host = host.trimmed().toStdString();
  node.port = port;
  node.tls = tlsOf(*this, tls);
  return node;
}

io::DicomWebService PacsServer::webService(const QString& secret) const {
  io::DicomWebService service;
  service.baseUrl = url.toStdString();
  if (auth == Auth::Basic) {
    service.user = user.toStdString();
    service.password = secret.toStdString();
  } else if (auth == Auth::Bearer) {
    service.bearerToken = secret.toStdString();
  }
  service.tls = tlsOf(*this, isHttps(url));
  return service;
}

QList<PacsServer> pacsServers() {
  QSettings settings;
  QList<PacsServer> servers;
  const int n = settings.beginReadArray(QStringLiteral("pacs/servers"));
  for (int i = 0; i < n; ++i) {
    settings.setArrayIndex(i);
    PacsServer s;
    s.name = settings.value("name").toString();
    s.protocol = settings.value("protocol").toString() == QLatin1String("dicomweb") ? PacsServer::Protocol::DicomWeb
                                                                                    : PacsServer::Protocol::Dimse;
    s.aeTitle = settings.value("aeTitle").toString();
    s.host = settings.value("host").toString();
    s.port = settings.value("port", s.port).toInt();
    s.callingAe = settings.value("callingAe", s.callingAe).toString();
    s.retrieval =
        settings.value("retrieval").toString() == QLatin1String("move") ? PacsServer::Retrieval::Move : PacsServer::Retrieval::Get;
    s.moveAe = settings.value("moveAe").toString();
    s.movePort = settings.value("movePort", s.movePort).toInt();
    s.url = settings.value("url").toString();
    const QString auth = settings.value("auth").toString();
    s.auth = auth == QLatin1String("basic")    ? PacsServer::Auth::Basic
             : auth == QLatin1String("bearer") ? PacsServer::Auth::Bearer
                                               : PacsServer::Auth::None;
    s.user = settings.value("user").toString();
    s.tls = settings.value("tls", false).toBool();
    s.caFile = settings.value("caFile").toString();
    s.certificateFile = settings.value("certificateFile").toString();
    s.privateKeyFile = settings.value("privateKeyFile").toString();
    s.inFlight = settings.value("inFlight", s.inFlight).toInt();
    servers.append(s);
  }
  settings.endArray();
  return servers;
}

bool savePacsServers(const QList<PacsServer>& servers, QString* error) {
  const auto fail = [error](const QString& why) {
    if (error) *error = why;
    return false;
  };
  QSet<QString> names;
  for (const PacsServer& s : servers) {
    if (const QString p = s.problem(); !p.isEmpty()) return fail(PacsText::tr("PACS server '%1': %2").arg(s.name, p));
    if (names.contains(s.name.toLower())) return fail(PacsText::tr("Two PACS servers are named '%1'").arg(s.name));
    names.insert(s.name.toLower());
  }
  QSettings settings;
  settings.remove(QStringLiteral("pacs/servers"));  // a shorter list must not leave the old entries behind
  settings.beginWriteArray(QStringLiteral("pacs/servers"), int(servers.size()));
  for (int i = 0; i < servers.size(); ++i) {
    const PacsServer& s = servers[i];
    settings.setArrayIndex(i);
    // Every field but the secret, which is nowhere in PacsServer: it goes to the keyring (storePacsSecret).
    settings.setValue("name", s.name);
    settings.setValue("protocol", protocolKey(s.protocol));
    settings.setValue("aeTitle", s.aeTitle);
    settings.setValue("host", s.host);
    settings.setValue("port", s.port);
    settings.setValue("callingAe", s.callingAe);
    settings.setValue("retrieval", retrievalKey(s.retrieval));
    settings.setValue("moveAe", s.moveAe);
    settings.setValue("movePort", s.movePort);
    settings.setValue("url", s.url);
    settings.setValue("auth", authKey(s.auth));
    settings.setValue("user", s.user);
    settings.setValue("tls", s.tls);
    settings.setValue("caFile", s.caFile);
    settings.setValue("certificateFile", s.certificateFile);
    settings.setValue("privateKeyFile", s.privateKeyFile);
    settings.setValue("inFlight", s.inFlight);
  }
  settings.endArray();
  settings.sync();
  if (settings.status() != QSettings::NoError)
    return fail(PacsText::tr("The settings file %1 could not be written").arg(settings.fileName()));
  return true;
}

SecretOutcome storePacsSecret(const QString& serverName, const QString& secret) {
  SecretOutcome out;
  auto* job = new QKeychain::WritePasswordJob(kService);
  job->setKey(serverName);
  job->setTextData(secret);
  const JobAnswer answer = runJob(job);
  QMutexLocker lock(&g_sessionMutex);
  out.ok = true;
  if (answer.answered && answer.error == QKeychain::NoError) {
    sessionSecrets().remove(serverName);
    out.inKeyring = true;
    return out;
  }
  sessionSecrets().insert(serverName, secret);
  out.error = PacsText::tr("no keyring answered (%1): the secret of '%2' is kept for this session only")
                  .arg(keyringError(answer), serverName);
  return out;
}

SecretOutcome readPacsSecret(const QString& serverName) {
  SecretOutcome out;
  {
    // A secret stored in this session that the keyring did not take is newer than anything the keyring holds.
    QMutexLocker lock(&g_sessionMutex);
    if (auto it = sessionSecrets().constFind(serverName); it != sessionSecrets().constEnd()) {
      out.ok = true;
      out.secret = *it;
      return out;
    }
  }
  auto* job = new QKeychain::ReadPasswordJob(kService);
  job->setKey(serverName);
  const JobAnswer answer = runJob(job);
  if (answer.answered && answer.error == QKeychain::NoError) {
    out.ok = out.inKeyring = true;
    out.secret = answer.text;
  } else if (answer.answered && answer.error == QKeychain::EntryNotFound) {
    out.error = PacsText::tr("the keyring holds no secret for '%1'").arg(serverName);
  } else {
    out.error = PacsText::tr("no keyring answered (%1): no secret for '%2'").arg(keyringError(answer), serverName);
  }
  return out;
}

SecretOutcome removePacsSecret(const QString& serverName) {
  SecretOutcome out;
  bool inSession = false;
  {
    QMutexLocker lock(&g_sessionMutex);
    inSession = sessionSecrets().remove(serverName) > 0;
  }
  auto* job = new QKeychain::DeletePasswordJob(kService);
  job->setKey(serverName);
  const JobAnswer answer = runJob(job);
  if (answer.answered && (answer.error == QKeychain::NoError || answer.error == QKeychain::EntryNotFound)) {
    out.ok = true;
  } else if (inSession) {
    // Kept for this session only because the keyring did not answer then either: it is gone now.
    out.ok = true;
  } else {
    out.error = PacsText::tr("no keyring answered (%1): a secret of '%2' may still be in it").arg(keyringError(answer), serverName);
  }
  return out;
}

}  // namespace delineate::app::gui
