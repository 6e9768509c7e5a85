#include "app/gui/pacs/pacs_servers_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>

#include "app/gui/base/dialog_folders.h"

namespace delineate::app::gui {

namespace {

bool isHttps(const QString& url) { return url.trimmed().startsWith(QLatin1String("https://"), Qt::CaseInsensitive); }

}  // namespace

PacsServerDialog::PacsServerDialog(const PacsServer& server, const QString& secret, const QStringList& takenNames,
                                   QWidget* parent)
    : QDialog(parent), m_taken(takenNames) {
  setObjectName("pacs-server-dialog");
  setWindowTitle(server.name.isEmpty() ? tr("Add PACS Server") : tr("Edit PACS Server"));
  auto* layout = new QVBoxLayout(this);
  // The dialog takes the size its visible rows need: switching protocol, authentication or C-MOVE, or a problem line
  // that goes, leaves no empty band.
  layout->setSizeConstraint(QLayout::SetFixedSize);

  auto* top = new QFormLayout();
  m_name = new QLineEdit(server.name, this);
  m_name->setObjectName("pacs-name");
  top->addRow(tr("Name:"), m_name);
  m_protocol = new QComboBox(this);
  m_protocol->setObjectName("pacs-protocol");
  m_protocol->addItem(tr("DIMSE (C-FIND, C-GET or C-MOVE)"), int(PacsServer::Protocol::Dimse));
  m_protocol->addItem(tr("DICOMweb (QIDO-RS, WADO-RS)"), int(PacsServer::Protocol::DicomWeb));
  m_protocol->setCurrentIndex(server.protocol == PacsServer::Protocol::DicomWeb ? 1 : 0);
  top->addRow(tr("Protocol:"), m_protocol);
  layout->addLayout(top);

  // DIMSE
  m_dimse = new QWidget(this);
  auto* dimse = new QFormLayout(m_dimse);
  dimse->setContentsMargins(0, 0, 0, 0);
  m_aeTitle = new QLineEdit(server.aeTitle, m_dimse);
  m_aeTitle->setPlaceholderText(tr("the PACS's AE title"));
  dimse->addRow(tr("AE title:"), m_aeTitle);
  m_host = new QLineEdit(server.host, m_dimse);
  dimse->addRow(tr("Host:"), m_host);
  m_port = new QSpinBox(m_dimse);
  m_port->setRange(1, 65535);
  m_port->setValue(server.port);
  dimse->addRow(tr("Port:"), m_port);
  m_callingAe = new QLineEdit(server.callingAe, m_dimse);
  dimse->addRow(tr("Our AE title:"), m_callingAe);
  m_retrieval = new QComboBox(m_dimse);
  m_retrieval->addItem(tr("C-GET"), int(PacsServer::Retrieval::Get));
  m_retrieval->addItem(tr("C-MOVE to our storage SCP"), int(PacsServer::Retrieval::Move));
  m_retrieval->setCurrentIndex(server.retrieval == PacsServer::Retrieval::Move ? 1 : 0);
  dimse->addRow(tr("Retrieve by:"), m_retrieval);
  m_moveAe = new QLineEdit(server.moveAe, m_dimse);
  m_moveAe->setPlaceholderText(tr("our AE title"));
  m_moveAeLabel = new QLabel(tr("C-MOVE destination AE title:"), m_dimse);
  dimse->addRow(m_moveAeLabel, m_moveAe);
  m_movePort = new QSpinBox(m_dimse);
  m_movePort->setRange(1, 65535);
  m_movePort->setValue(server.movePort);
  m_movePortLabel = new QLabel(tr("C-MOVE port we listen on:"), m_dimse);
  dimse->addRow(m_movePortLabel, m_movePort);
  layout->addWidget(m_dimse);

  // DICOMweb
  m_web = new QWidget(this);
  auto* web = new QFormLayout(m_web);
  web->setContentsMargins(0, 0, 0, 0);
  m_url = new QLineEdit(server.url, m_web);
  m_url->setPlaceholderText(QStringLiteral("https://pacs.example.org/dicom-web"));
  web->addRow(tr("URL:"), m_url);
  m_auth = new QComboBox(m_web);
  m_auth->addItem(tr("None"), int(PacsServer::Auth::None));
  m_auth->addItem(tr("User name and password (basic)"), int(PacsServer::Auth::Basic));
  m_auth->addItem(tr("Token (bearer)"), int(PacsServer::Auth::Bearer));
  m_auth->setCurrentIndex(std::max(0, m_auth->findData(int(server.auth))));
  web->addRow(tr("Authentication:"), m_auth);
  m_user = new QLineEdit(server.user, m_web);
  m_userLabel = new QLabel(tr("User:"), m_web);
  web->addRow(m_userLabel, m_user);
  m_secret = new QLineEdit(secret, m_web);
  m_secret->setObjectName("pacs-secret");
  m_secret->setEchoMode(QLineEdit::Password);
  m_secretLabel = new QLabel(m_web);
  web->addRow(m_secretLabel, m_secret);
  auto* keyring = new QLabel(tr("Kept in the desktop keyring, never in the settings file."), m_web);
  keyring->setWordWrap(true);
  web->addRow(QString(), keyring);
  layout->addWidget(m_web);

  // TLS, for both protocols (DICOMweb: the URL's scheme decides)
  auto* tls = new QFormLayout();
  m_tls = new QCheckBox(tr("Use TLS"), this);
  m_tls->setChecked(server.tls);
  tls->addRow(tr("TLS:"), m_tls);
  const auto fileRow = [this, tls](const QString& label, const QString& value, const QString& title) {
    auto* edit = new QLineEdit(value, this);
    edit->setMinimumWidth(edit->fontMetrics().averageCharWidth() * 40);  // a path, and its hint, readable
    auto* browse = new QPushButton(tr("Browse..."), this);
    auto* row = new QHBoxLayout();
    row->addWidget(edit, 1);
    row->addWidget(browse);
    tls->addRow(label, row);
    connect(browse, &QPushButton::clicked, this, [this, edit, title] {
      const QString start = edit->text().isEmpty() ? lastOpenFolder() : edit->text();
      const QString path = QFileDialog::getOpenFileName(this, title, start, tr("PEM files (*.pem *.crt *.key);;All files (*)"));
      if (!path.isEmpty()) edit->setText(path);
    });
    return edit;
  };
  m_caFile = fileRow(tr("CA file:"), server.caFile, tr("Certificate Authorities (PEM)"));
  m_caFile->setPlaceholderText(tr("DICOMweb: the system's certificate authorities"));
  m_certificate = fileRow(tr("Our certificate:"), server.certificateFile, tr("Our Certificate (PEM)"));
  m_certificate->setPlaceholderText(tr("only where the PACS asks for one"));
  m_privateKey = fileRow(tr("Our private key:"), server.privateKeyFile, tr("Our Private Key (PEM)"));
  m_inFlight = new QSpinBox(this);
  m_inFlight->setRange(1, 16);
  m_inFlight->setValue(std::clamp(server.inFlight, 1, 16));
  m_inFlight->setToolTip(tr("Associations (DIMSE) or HTTP requests (DICOMweb) at once when retrieving"));
  tls->addRow(tr("Requests in flight:"), m_inFlight);
  layout->addLayout(tls);

  m_problem = new QLabel(this);
  m_problem->setObjectName("pacs-problem");
  m_problem->setWordWrap(true);
  m_problem->setStyleSheet(QStringLiteral("color: #c62828;"));
  layout->addWidget(m_problem);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  m_ok = buttons->button(QDialogButtonBox::Ok);
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &PacsServerDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

  for (QLineEdit* e : {m_name, m_aeTitle, m_host, m_callingAe, m_moveAe, m_url, m_user, m_secret, m_caFile, m_certificate,
                       m_privateKey})
    connect(e, &QLineEdit::textChanged, this, &PacsServerDialog::refresh);
  for (QComboBox* c : {m_protocol, m_retrieval, m_auth})
    connect(c, &QComboBox::currentIndexChanged, this, &PacsServerDialog::refresh);
  for (QSpinBox* s : {m_port, m_movePort, m_inFlight}) connect(s, &QSpinBox::valueChanged, this, &PacsServerDialog::refresh);
  connect(m_tls, &QCheckBox::toggled, this, &PacsServerDialog::refresh);
  refresh();
}

PacsServer PacsServerDialog::server() const {
  PacsServer s;
  s.name = m_name->text().trimmed();
  s.protocol = PacsServer::Protocol(m_protocol->currentData().toInt());
  s.aeTitle = m_aeTitle->text().trimmed();
  s.host = m_host->text().trimmed();
  s.port = m_port->value();
  s.callingAe = m_callingAe->text().trimmed();
  s.retrieval = PacsServer::Retrieval(m_retrieval->currentData().toInt());
  s.moveAe = m_moveAe->text().trimmed();
  s.movePort = m_movePort->value();
  s.url = m_url->text().trimmed();
  s.auth = PacsServer::Auth(m_auth->currentData().toInt());
  s.user = s.auth == PacsServer::Auth::Basic ? m_user->text().trimmed() : QString();
  s.tls = s.protocol == PacsServer::Protocol::DicomWeb ? isHttps(s.url) : m_tls->isChecked();
  s.caFile = m_caFile->text().trimmed();
  s.certificateFile = m_certificate->text().trimmed();
  s.privateKeyFile = m_privateKey->text().trimmed();
  s.inFlight = m_inFlight->value();
  return s;
}

QString PacsServerDialog::secret() const { return server().needsSecret() ? m_secret->text() : QString(); }

QString PacsServerDialog::problem() const {
  const PacsServer s = server();
  if (QString p = s.problem(); !p.isEmpty()) return p;
  for (const QString& taken : m_taken)
    if (taken.compare(s.name, Qt::CaseInsensitive) == 0) return tr("Another server is named '%1'").arg(taken);
  if (s.needsSecret() && m_secret->text().isEmpty())
    return s.auth == PacsServer::Auth::Bearer ? tr("The token is empty") : tr("The password is empty");
  return {};
}

void PacsServerDialog::accept() {
  refresh();
  if (!problem().isEmpty()) return;
  QDialog::accept();
}

void PacsServerDialog::refresh() {
  const bool web = m_protocol->currentData().toInt() == int(PacsServer::Protocol::DicomWeb);
  m_dimse->setVisible(!web);
  m_web->setVisible(web);
  const bool move = m_retrieval->currentData().toInt() == int(PacsServer::Retrieval::Move);
  for (QWidget* w : std::initializer_list<QWidget*>{m_moveAe, m_moveAeLabel, m_movePort, m_movePortLabel})
    w->setVisible(move);
  const auto auth = PacsServer::Auth(m_auth->currentData().toInt());
  m_user->setVisible(auth == PacsServer::Auth::Basic);
  m_userLabel->setVisible(auth == PacsServer::Auth::Basic);
  m_secret->setVisible(auth != PacsServer::Auth::None);
  m_secretLabel->setVisible(auth != PacsServer::Auth::None);
  m_secretLabel->setText(auth == PacsServer::Auth::Bearer ? tr("Token:") : tr("Password:"));
  if (web) {
    // An https:// URL is TLS, an http:// one is not: the checkbox only shows which.
    const QSignalBlocker block(m_tls);
    m_tls->setChecked(isHttps(m_url->text()));
  }
  m_tls->setEnabled(!web);
  const bool tls = web ? isHttps(m_url->text()) : m_tls->isChecked();
  for (QLineEdit* e : {m_caFile, m_certificate, m_privateKey}) e->setEnabled(tls);
  const QString why = problem();
  m_problem->setText(why);
  m_problem->setVisible(!why.isEmpty());
  m_ok->setEnabled(why.isEmpty());
}

}  // namespace delineate::app::gui
