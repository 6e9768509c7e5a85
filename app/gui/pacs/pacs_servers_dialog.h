#pragma once
// Add or edit one PACS server (the preferences' PACS Servers page opens it): a form with the fields of the chosen
// protocol, the password or token in a password field, TLS files with Browse buttons. OK is refused while the server
// has a problem (shown in red under the form) or its name is taken.

#include <QDialog>
#include <QStringList>

#include "app/gui/pacs/pacs_servers.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QWidget;

namespace delineate::app::gui {

class PacsServerDialog : public QDialog {
  Q_OBJECT

 public:
  // `secret`: the server's password or token as known now (from the keyring when editing); `takenNames`: the other
  // servers' names (compared case-insensitively).
  PacsServerDialog(const PacsServer& server, const QString& secret, const QStringList& takenNames,
                   QWidget* parent = nullptr);

  PacsServer server() const;  // as the fields say now
  QString secret() const;     // empty where the server needs none
  // Why OK is refused (empty: it is not).
  QString problem() const;

  void accept() override;  // refused while problem() is not empty

  QLineEdit* nameEdit() const { return m_name; }
  QComboBox* protocolBox() const { return m_protocol; }
  QLineEdit* aeTitleEdit() const { return m_aeTitle; }
  QLineEdit* hostEdit() const { return m_host; }
  QSpinBox* portBox() const { return m_port; }
  QLineEdit* callingAeEdit() const { return m_callingAe; }
  QComboBox* retrievalBox() const { return m_retrieval; }
  QLineEdit* moveAeEdit() const { return m_moveAe; }
  QSpinBox* movePortBox() const { return m_movePort; }
  QLineEdit* urlEdit() const { return m_url; }
  QComboBox* authBox() const { return m_auth; }
  QLineEdit* userEdit() const { return m_user; }
  QLineEdit* secretEdit() const { return m_secret; }
  QCheckBox* tlsBox() const { return m_tls; }
  QLineEdit* caFileEdit() const { return m_caFile; }
  QLineEdit* certificateEdit() const { return m_certificate; }
  QLineEdit* privateKeyEdit() const { return m_privateKey; }
  QSpinBox* inFlightBox() const { return m_inFlight; }
  QLabel* problemLabel() const { return m_problem; }
  QPushButton* okButton() const { return m_ok; }
  // The groups shown for one protocol only.
  QWidget* dimseFields() const { return m_dimse; }
  QWidget* webFields() const { return m_web; }

 private:
  void refresh();  // shows the chosen protocol's fields and says what is wrong

  QStringList m_taken;
  QLineEdit *m_name, *m_aeTitle, *m_host, *m_callingAe, *m_moveAe, *m_url, *m_user, *m_secret;
  QLineEdit *m_caFile, *m_certificate, *m_privateKey;
  QComboBox *m_protocol, *m_retrieval, *m_auth;
  QSpinBox *m_port, *m_movePort, *m_inFlight;
  QCheckBox* m_tls;
  QLabel *m_problem, *m_secretLabel, *m_userLabel, *m_moveAeLabel, *m_movePortLabel;
  QWidget *m_dimse, *m_web;
  QPushButton* m_ok;
};

}  // namespace delineate::app::gui
