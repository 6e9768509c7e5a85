<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>AuthorPrompt</name>
    <message>
        <location filename="../app/gui/base/author_name.cpp" line="+22"/>
        <source>No author name: set yours in File &gt; Preferences (it is stored with every revision)</source>
        <translation>Kein Autorname: tragen Sie Ihren unter Datei &gt; Einstellungen ein (er wird mit jeder Revision gespeichert)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Author Name</source>
        <translation>Autorname</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Your name, stored with every revision you save, every review step and every model you train (File &gt; Preferences changes it):</source>
        <translation>Ihr Name, gespeichert mit jeder Revision, die Sie speichern, jedem Prüfschritt und jedem Modell, das Sie trainieren (Datei &gt; Einstellungen ändert ihn):</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No author name given: nothing was saved or recorded</source>
        <translation>Kein Autorname angegeben: nichts wurde gespeichert oder vermerkt</translation>
    </message>
</context>
<context>
    <name>EditStep</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+34"/>
        <source>Paint</source>
        <translation>Malen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Erase</source>
        <translation>Radieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill</source>
        <translation>Flutfüllung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>Größte Insel behalten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove small islands</source>
        <translation>Kleine Inseln entfernen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>Löcher füllen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>Glätten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>Schichten interpolieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices over other labels</source>
        <translation>Schichten über andere Labels interpolieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open label map</source>
        <translation>Labelmap öffnen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment everything</source>
        <translation>Alles segmentieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>Ausgewählte Klassen segmentieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept AI object</source>
        <translation>KI-Objekt übernehmen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recovered edits</source>
        <translation>Wiederhergestellte Änderungen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add label</source>
        <translation>Label hinzufügen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename label</source>
        <translation>Label umbenennen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lock label</source>
        <translation>Label sperren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour label</source>
        <translation>Labelfarbe ändern</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import label table</source>
        <translation>Labeltabelle importieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label names</source>
        <translation>Labelnamen</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="+125"/>
        <source>out of memory</source>
        <translation>nicht genügend Arbeitsspeicher</translation>
    </message>
    <message>
        <location line="+72"/>
        <location line="+25"/>
        <location line="+10"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>%1 voxels belonged to more than one ROI; each went to the smallest ROI holding it</source>
        <translation>%1 Voxel gehörten zu mehr als einer ROI; jedes ging an die kleinste ROI, die es enthält</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Series %1 of %2 holds no RT Structure Set</source>
        <translation>Serie %1 von %2 enthält kein RT Structure Set</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Series %1 of %2 holds %3 RT Structure Sets; open one with File &gt; Open RT Structure Set from %4</source>
        <translation>Serie %1 von %2 enthält %3 RT Structure Sets; öffnen Sie eines mit Datei &gt; RT Structure Set öffnen aus %4</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>%1: no image series found</source>
        <translation>%1: keine Bildserie gefunden</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>%1 / %2 on %3 holds no revision</source>
        <translation>%1 / %2 auf %3 enthält keine Revision</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+75"/>
        <source>%1 revision %2</source>
        <translation>%1 Revision %2</translation>
    </message>
    <message>
        <location line="-28"/>
        <source>Series %1 of %2 is not one regular image (split, irregular or incomplete); open its verified copy with File &gt; Open DICOM Folder: %3</source>
        <translation>Serie %1 von %2 ist kein einzelnes regelmäßiges Bild (geteilt, unregelmäßig oder unvollständig); öffnen Sie ihre geprüfte Kopie mit Datei &gt; DICOM-Ordner öffnen: %3</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="+202"/>
        <source>Move the crosshair</source>
        <translation>Fadenkreuz bewegen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click or drag (Navigate)</source>
        <translation>Linksklick oder Ziehen (Navigieren)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint / erase / fill</source>
        <translation>Malen / Radieren / Füllen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag (Brush, Eraser, Fill)</source>
        <translation>Ziehen mit linker Maustaste (Pinsel, Radierer, Füllen)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush size</source>
        <translation>Pinselgröße</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>[ and ], or Shift + wheel</source>
        <translation>[ und ] oder Shift + Mausrad</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Positive AI point</source>
        <translation>Positiver KI-Punkt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click (click mode)</source>
        <translation>Linksklick (Klickmodus)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Negative AI point</source>
        <translation>Negativer KI-Punkt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Shift + left click or right click (click mode)</source>
        <translation>Shift + Linksklick oder Rechtsklick (Klickmodus)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI box, scribble or lasso</source>
        <translation>KI-Rechteck, -Strich oder -Lasso</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Left drag; negative: Shift + left drag or right drag (its tool chosen)</source>
        <translation>Ziehen mit links; negativ: Umschalt + Ziehen mit links oder Ziehen mit rechts (sein Werkzeug gewählt)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scroll slices</source>
        <translation>Durch Schichten blättern</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Wheel, Up/Down, PageUp/PageDown</source>
        <translation>Mausrad, Up/Down, PageUp/PageDown</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom</source>
        <translation>Zoomen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl + wheel, + and -</source>
        <translation>Ctrl + Mausrad, + und -</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pan</source>
        <translation>Verschieben</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Middle drag or Shift + left drag</source>
        <translation>Ziehen mit mittlerer Maustaste oder Shift + Ziehen mit linker Maustaste</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Window / level</source>
        <translation>Fensterung (Breite / Lage)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Right drag (not in click mode)</source>
        <translation>Ziehen mit rechter Maustaste (nicht im Klickmodus)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One view alone and back</source>
        <translation>Eine Ansicht allein und zurück</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click</source>
        <translation>Doppelklick</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reset the view</source>
        <translation>Ansicht zurücksetzen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rotate the 3D view</source>
        <translation>3D-Ansicht drehen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag in 3D</source>
        <translation>Ziehen mit linker Maustaste in 3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename a label</source>
        <translation>Label umbenennen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its name</source>
        <translation>Doppelklick auf den Namen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour a label</source>
        <translation>Labelfarbe ändern</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its id</source>
        <translation>Doppelklick auf die ID</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Keyboard Shortcuts and Mouse</source>
        <translation>Tastenkürzel und Maus</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Action</source>
        <translation>Aktion</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Keys or mouse</source>
        <translation>Tasten oder Maus</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::AiPanel</name>
    <message>
        <location filename="../app/gui/ai/ai_panel.cpp" line="+216"/>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine&apos;s model: the one set in the preferences, or a trained model from the share&apos;s checkpoints (its newest revision)</source>
        <translation>Das Modell der Engine: das in den Einstellungen gewählte oder ein trainiertes Modell aus den Checkpoints der Freigabe (seine neueste Revision)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>List the share&apos;s models again</source>
        <translation>Die Modelle der Freigabe neu auflisten</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+239"/>
        <source>From the preferences</source>
        <translation>Aus den Einstellungen</translation>
    </message>
    <message>
        <location line="-238"/>
        <source>Segment everything</source>
        <translation>Alles segmentieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Classes:</source>
        <translation>Klassen:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>Ausgewählte Klassen segmentieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Click mode (A)</source>
        <translation>Klickmodus (A)</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Accept</source>
        <translation>Übernehmen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Write the object into the label chosen under &quot;Accept into&quot; (Return)</source>
        <translation>Das Objekt in das unter „Übernehmen in“ gewählte Label schreiben (Eingabe)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept into:</source>
        <translation>Übernehmen in:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The label the accepted object is written into: a new label unless you choose one here or in the labels list</source>
        <translation>Das Label, in das das übernommene Objekt geschrieben wird: ein neues Label, außer Sie wählen hier oder in der Labelliste eines</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Discard</source>
        <translation>Verwerfen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drop the object (Escape)</source>
        <translation>Objekt verwerfen (Escape)</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+391"/>
        <source>AI click mode</source>
        <translation>KI-Klickmodus</translation>
    </message>
    <message>
        <location line="-391"/>
        <source>Accept AI object</source>
        <translation>KI-Objekt übernehmen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Discard AI object</source>
        <translation>KI-Objekt verwerfen</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Engine: starting...</source>
        <translation>Engine: wird gestartet...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Engine: none</source>
        <translation>Engine: keine</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Engine: %1 on %2</source>
        <translation>Engine: %1 auf %2</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>classic engine: no VISTA-3D checkpoint is configured</source>
        <translation>klassische Engine: kein VISTA-3D-Checkpoint konfiguriert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>classic engine: no CUDA device for VISTA-3D (choose the CPU in the preferences to run it there, at minutes per window)</source>
        <translation>klassische Engine: kein CUDA-Gerät für VISTA-3D (wählen Sie in den Einstellungen die CPU, um es dort auszuführen, mit Minuten pro Fenster)</translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>atlas network %1 (%n classes) on %2</source>
        <translation>
            <numerusform>Atlas-Netz %1 (%n Klasse) auf %2</numerusform>
            <numerusform>Atlas-Netz %1 (%n Klassen) auf %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>VISTA-3D on %1</source>
        <translation>VISTA-3D auf %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, asked for (the full model takes minutes per 128^3 window on a CPU)</source>
        <translation>, so gewünscht (das volle Modell braucht auf einer CPU Minuten pro 128^3-Fenster)</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>, fine-tuned: %n classes by the labels it was trained with</source>
        <translation>
            <numerusform>, feinabgestimmt: %n Klasse mit den Labels, mit denen es trainiert wurde</numerusform>
            <numerusform>, feinabgestimmt: %n Klassen mit den Labels, mit denen es trainiert wurde</numerusform>
        </translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Fit unknown: this model&apos;s sidecar records nothing of its training images (a checkpoint from before they were recorded); check its results on this study with care.</source>
        <translation>Eignung unbekannt: die Begleitdatei dieses Modells verzeichnet nichts über seine Trainingsbilder (ein Checkpoint aus der Zeit, bevor sie verzeichnet wurden); prüfen Sie seine Ergebnisse auf dieser Studie sorgfältig.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 × %2 × %3 mm</source>
        <translation>%1 × %2 × %3 mm</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>image</source>
        <translation>Bild</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this %1 is %2 mm, %3 × %4 × %5 voxels (%6)</source>
        <translation>dieses %1 hat %2 mm, %3 × %4 × %5 Voxel (%6)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>%1-%2</source>
        <translation>%1–%2</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n image(s)</source>
        <translation>
            <numerusform>%n Bild</numerusform>
            <numerusform>%n Bildern</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n %1 image(s)</source>
        <translation>
            <numerusform>%n %1-Bild</numerusform>
            <numerusform>%n %1-Bildern</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model trained on %1 at %2 mm, field of view up to %3; %4</source>
        <translation>Modell trainiert auf %1 mit %2 mm, Sichtfeld bis %3; %4</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>field of view %1× larger</source>
        <translation>Sichtfeld %1× größer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>field of view %1× smaller</source>
        <translation>Sichtfeld %1× kleiner</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× coarser</source>
        <translation>Voxel %1× gröber</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× finer</source>
        <translation>Voxel %1× feiner</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>another modality</source>
        <translation>eine andere Modalität</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no CT intensities (Hounsfield units)</source>
        <translation>keine CT-Intensitäten (Hounsfield-Einheiten)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>resampled to the model&apos;s grid it would be %1 billion voxels, too large to segment</source>
        <translation>auf das Gitter des Modells umgerechnet wären es %1 Milliarden Voxel, zu groß zum Segmentieren</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The model does not fit this study: %1: %2</source>
        <translation>Das Modell passt nicht zu dieser Studie: %1: %2</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Model Does Not Fit the Study</source>
        <translation>Modell passt nicht zur Studie</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its result is likely to be wrong. Run it anyway?</source>
        <translation>Sein Ergebnis ist wahrscheinlich falsch. Trotzdem ausführen?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run Anyway</source>
        <translation>Trotzdem ausführen</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>The engine is busy: choose the model when it is done</source>
        <translation>Die Engine ist beschäftigt: Modell wählen, wenn sie fertig ist</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Share models: %1</source>
        <translation>Modelle der Freigabe: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 (being trained by %2)</source>
        <translation>%1 (wird von %2 trainiert)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 r%2</source>
        <translation>%1 r%2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1 class</source>
        <translation>1 Klasse</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 classes</source>
        <translation>%1 Klassen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dice %1</source>
        <translation>Dice %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>being trained by %1</source>
        <translation>wird von %1 trainiert</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1, saved by %2 at %3</source>
        <translation>%1, gespeichert von %2 am %3</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>AI engine: %1</source>
        <translation>KI-Engine: %1</translation>
    </message>
    <message>
        <location line="+238"/>
        <location line="+53"/>
        <source>AI prompt: %1</source>
        <translation>KI-Prompt: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+83"/>
        <source>%n prompt(s), object %1 voxels; engine %2 ms, display %3 ms</source>
        <translation>
            <numerusform>%n Prompt, Objekt %1 Voxel; Engine %2 ms, Anzeige %3 ms</numerusform>
            <numerusform>%n Prompts, Objekt %1 Voxel; Engine %2 ms, Anzeige %3 ms</numerusform>
        </translation>
    </message>
    <message>
        <location line="-604"/>
        <source>classic engine (the configured one failed)</source>
        <translation>klassische Engine (die konfigurierte ist fehlgeschlagen)</translation>
    </message>
    <message>
        <location line="+283"/>
        <source>Tick the classes to segment first</source>
        <translation>Zuerst die zu segmentierenden Klassen ankreuzen</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <location line="-219"/>
        <location line="+221"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location line="-384"/>
        <source>Prompt:</source>
        <translation>Prompt:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Point</source>
        <translation>Punkt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Box</source>
        <translation>Rechteck</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Scribble</source>
        <translation>Strich</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lasso</source>
        <translation>Lasso</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Click on the object (positive) or beside it (negative) (P)</source>
        <translation>Auf das Objekt (positiv) oder daneben (negativ) klicken (P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drag a rectangle around the object in a slice: it bounds the object in that slice&apos;s two directions (X)</source>
        <translation>Ein Rechteck in einer Schicht um das Objekt ziehen: es begrenzt das Objekt in den beiden Richtungen dieser Schicht (X)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint a stroke over the object (positive) or over what is not (negative) (S)</source>
        <translation>Einen Strich über das Objekt (positiv) oder über das, was es nicht ist (negativ), malen (S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Draw a closed contour around part of the object in a slice; its inside is the object, or not (L)</source>
        <translation>Eine geschlossene Kontur um einen Teil des Objekts in einer Schicht zeichnen; ihr Inneres ist das Objekt, oder nicht (L)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Left button: positive. Shift + left or right button: negative. A click gives a point; a drag gives a box, scribble or lasso.</source>
        <translation>Linke Taste: positiv. Umschalt + linke oder rechte Taste: negativ. Ein Klick ergibt einen Punkt, ein Ziehen ein Rechteck, einen Strich oder ein Lasso.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Undo prompt</source>
        <translation>Prompt rückgängig</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove the last prompt (Backspace)</source>
        <translation>Den letzten Prompt entfernen (Rücktaste)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Remove last AI prompt</source>
        <translation>Letzten KI-Prompt entfernen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: point</source>
        <translation>KI-Prompt: Punkt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: box</source>
        <translation>KI-Prompt: Rechteck</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI prompt: scribble</source>
        <translation>KI-Prompt: Strich</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: lasso</source>
        <translation>KI-Prompt: Lasso</translation>
    </message>
    <message>
        <location line="+364"/>
        <source>%1: the engine found nothing (every voxel is background)</source>
        <translation>%1: die Engine hat nichts gefunden (jedes Voxel ist Hintergrund)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: %2 s</source>
        <translation>%1: %2 s</translation>
    </message>
    <message>
        <location line="+124"/>
        <source>model-guided: edits label %1</source>
        <translation>modellgeführt: bearbeitet Label %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>classic engine (intensities): choose one of the model&apos;s labels to edit it model-guided</source>
        <translation>klassische Engine (Intensitäten): ein Label des Modells wählen, um es modellgeführt zu bearbeiten</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Wait for the study to finish loading</source>
        <translation>Warten Sie, bis die Studie geladen ist</translation>
    </message>
    <message>
        <location line="+209"/>
        <source>New label</source>
        <translation>Neues Label</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1  (unnamed)</source>
        <translation>%1  (unbenannt)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Accept: every label id is in use</source>
        <translation>Übernehmen: jede Label-ID ist vergeben</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label %1</source>
        <translation>Label %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Accept: %1</source>
        <translation>Übernehmen: %1</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Accept: there is no object to accept yet</source>
        <translation>Übernehmen: noch kein Objekt zum Übernehmen</translation>
    </message>
    <message numerus="yes">
        <location line="+20"/>
        <source>Accepted: %n voxel(s) written to label %1</source>
        <translation>
            <numerusform>Übernommen: %n Voxel in Label %1 geschrieben</numerusform>
            <numerusform>Übernommen: %n Voxel in Label %1 geschrieben</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::EditTools</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+158"/>
        <source>Navigate</source>
        <translation>Navigieren</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush</source>
        <translation>Pinsel</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Eraser</source>
        <translation>Radierer</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Fill</source>
        <translation>Füllen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Navigate: the crosshair, no editing (N)</source>
        <translation>Navigieren: Fadenkreuz setzen, keine Bearbeitung (N)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush: paint the active label (B)</source>
        <translation>Pinsel: mit dem aktiven Label malen (B)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Eraser: paint background (E)</source>
        <translation>Radierer: Hintergrund malen (E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill: the connected region under the click (F)</source>
        <translation>Flutfüllung: die zusammenhängende Region unter dem Klick (F)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Larger brush</source>
        <translation>Größerer Pinsel</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smaller brush</source>
        <translation>Kleinerer Pinsel</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush radius</source>
        <translation>Pinselradius</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>[ and ] or Shift + wheel over a view</source>
        <translation>[ und ] oder Shift + Mausrad über einer Ansicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D brush (sphere)</source>
        <translation>3D-Pinsel (Kugel)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D flood fill</source>
        <translation>3D-Flutfüllung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Protect other labels</source>
        <translation>Andere Labels schützen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The brush paints only over background; the eraser removes only the active label</source>
        <translation>Der Pinsel malt nur über Hintergrund; der Radierer entfernt nur das aktive Label</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only intensities in range</source>
        <translation>Nur Intensitäten im Bereich</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Active label</source>
        <translation>Aktives Label</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>Größte Insel behalten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove islands under (voxels)</source>
        <translation>Inseln entfernen unter (Voxel)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>Löcher füllen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>Glätten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>Schichten interpolieren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>Koronal</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Brush radius %1 mm</source>
        <translation>Pinselradius %1 mm</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Choose or add a label to paint with</source>
        <translation>Label zum Malen wählen oder hinzufügen</translation>
    </message>
    <message>
        <location line="+58"/>
        <source>Choose or add a label to fill with</source>
        <translation>Label zum Füllen wählen oder hinzufügen</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Choose a label first</source>
        <translation>Zuerst ein Label wählen</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+58"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <location line="-54"/>
        <source>%1: %n voxel(s) changed</source>
        <translation>
            <numerusform>%1: %n Voxel geändert</numerusform>
            <numerusform>%1: %n Voxel geändert</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: nothing to change</source>
        <translation>%1: nichts zu ändern</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>%1: every label id is in use</source>
        <translation>%1: jede Label-ID ist vergeben</translation>
    </message>
    <message numerus="yes">
        <location line="+58"/>
        <source>Interpolate slices: %n voxel(s) between the slices belong to other labels and were left as they are (interpolation fills only unlabelled voxels)</source>
        <translation>
            <numerusform>Schichten interpolieren: %n Voxel zwischen den Schichten gehört zu anderen Labels und blieb unverändert (die Interpolation füllt nur unbeschriftete Voxel)</numerusform>
            <numerusform>Schichten interpolieren: %n Voxel zwischen den Schichten gehören zu anderen Labels und blieben unverändert (die Interpolation füllt nur unbeschriftete Voxel)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Interpolate Slices</source>
        <translation>Schichten interpolieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate over the other labels? Locked labels stay as they are; Undo takes it back in one step.</source>
        <translation>Über die anderen Labels interpolieren? Gesperrte Labels bleiben unverändert; Rückgängig nimmt es in einem Schritt zurück.</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Undone: %1</source>
        <translation>Rückgängig gemacht: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Redone: %1</source>
        <translation>Wiederhergestellt: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>&amp;Undo %1</source>
        <translation>&amp;Rückgängig: %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Undo</source>
        <translation>&amp;Rückgängig</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Redo %1</source>
        <translation>&amp;Wiederherstellen: %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Redo</source>
        <translation>&amp;Wiederherstellen</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::LabelPanel</name>
    <message>
        <location filename="../app/gui/editing/label_panel.cpp" line="+51"/>
        <source>Label tables (*.label *.txt *.ctbl *.csv *.tsv *.json);;All files (*)</source>
        <translation>Labeltabellen (*.label *.txt *.ctbl *.csv *.tsv *.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Label %1</source>
        <translation>Label %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add Label</source>
        <translation>Label hinzufügen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Import Label Table</source>
        <translation>Labeltabelle importieren</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export Label Table</source>
        <translation>Labeltabelle exportieren</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show</source>
        <translation>Sichtbar</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lock</source>
        <translation>Gesperrt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>Volumen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Opacity</source>
        <translation>Deckkraft</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add</source>
        <translation>Hinzufügen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Colour...</source>
        <translation>Farbe...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show all</source>
        <translation>Alle zeigen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hide all</source>
        <translation>Alle ausblenden</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Import table...</source>
        <translation>Tabelle importieren...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Export table...</source>
        <translation>Tabelle exportieren...</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+107"/>
        <location line="+7"/>
        <source>label %1</source>
        <translation>Label %1</translation>
    </message>
    <message>
        <location line="-109"/>
        <source>Unnamed: the labels&apos; table does not name id %1</source>
        <translation>Unbenannt: die Labeltabelle benennt ID %1 nicht</translation>
    </message>
    <message>
        <location line="+111"/>
        <source>Colour of %1</source>
        <translation>Farbe von %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Every label id is in use</source>
        <translation>Alle Label-IDs sind vergeben</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>%1: the file holds no labels</source>
        <translation>%1: Die Datei enthält keine Labels</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::MainWindow</name>
    <message>
        <location filename="../app/gui/shell/main_window.cpp" line="+91"/>
        <location line="+250"/>
        <location line="+72"/>
        <source>Delineate</source>
        <translation>Delineate</translation>
    </message>
    <message>
        <location line="-278"/>
        <location line="+141"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location line="-102"/>
        <location line="+99"/>
        <source>Labels</source>
        <translation>Labels</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>Tools</source>
        <translation>Werkzeuge</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>AI</source>
        <translation>KI</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+105"/>
        <location line="+507"/>
        <source>Training</source>
        <translation>Training</translation>
    </message>
    <message>
        <location line="-610"/>
        <source>Open an image (File &gt; Open Image) or a DICOM folder</source>
        <translation>Öffnen Sie ein Bild (Datei &gt; Bild öffnen) oder einen DICOM-Ordner</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Import into Share</source>
        <translation>In die Freigabe importieren</translation>
    </message>
    <message>
        <location line="+118"/>
        <source>Delineate - %1 (share)</source>
        <translation>Delineate - %1 (Freigabe)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate - %1</source>
        <translation>Delineate - %1</translation>
    </message>
    <message>
        <location line="+24"/>
        <source> (review state unreadable)</source>
        <translation> (Prüfstatus nicht lesbar)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source> NOT TRUSTED: %1.</source>
        <translation> NICHT VERTRAUENSWÜRDIG: %1.</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source> %n review step(s) not counted (unsigned, forged or out of role).</source>
        <translation>
            <numerusform> %n Prüfschritt nicht gezählt (unsigniert, gefälscht oder ohne Rolle).</numerusform>
            <numerusform> %n Prüfschritte nicht gezählt (unsigniert, gefälscht oder ohne Rolle).</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (not reviewed)</source>
        <translation> (nicht geprüft)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (submitted for review by %1)</source>
        <translation> (von %1 zur Prüfung eingereicht)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (approved by %1)</source>
        <translation> (von %1 freigegeben)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (sent back by %1: %2)</source>
        <translation> (von %1 zurückgegeben: %2)</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>One study at a time: opening %1</source>
        <translation>Eine Studie nach der anderen: %1 wird geöffnet</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>W %1  L %2</source>
        <translation>B %1  L %2</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>LPS (%1, %2, %3) mm</source>
        <translation>LPS (%1, %2, %3) mm</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>   voxel (%1, %2, %3)   %4 %5</source>
        <translation>   Voxel (%1, %2, %3)   %4 %5</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>HU</source>
        <translation>HU</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>value</source>
        <translation>Wert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   label %1 %2</source>
        <translation>   Label %1 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   outside the image</source>
        <translation>   außerhalb des Bildes</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1: cannot encode the screenshot</source>
        <translation>%1: das Bildschirmfoto kann nicht kodiert werden</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>VISTA-3D checkpoint: %1</source>
        <translation>VISTA-3D-Checkpoint: %1</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>AI engine: %1</source>
        <translation>KI-Engine: %1</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Dataset %1 version %2 saved: choose it in the Training dock</source>
        <translation>Datensatz %1 Version %2 gespeichert: im Training-Dock auswählen</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>%1 (share %2)</source>
        <translation>%1 (Freigabe %2)</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+12"/>
        <source>%1, %2 (share %3)</source>
        <translation>%1, %2 (Freigabe %3)</translation>
    </message>
    <message>
        <location line="-8"/>
        <source>%1 (DICOM series %2)</source>
        <translation>%1 (DICOM-Serie %2)</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>labels: %1</source>
        <translation>Labels: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The labels last saved with this study were written to %1, which is not there any more: the study opens without them</source>
        <translation>Die zuletzt mit dieser Studie gespeicherten Labels wurden nach %1 geschrieben, das es nicht mehr gibt: die Studie öffnet ohne sie</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>A save to the share is running: cancel it or wait before closing</source>
        <translation>Ein Speichern in die Freigabe läuft: abbrechen oder warten, bevor Sie schließen</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>A training run (%1) is going on. Keep it running after the window closes? The window follows it again when it opens; No stops it with its checkpoint saved.</source>
        <translation>Ein Trainingslauf (%1) läuft. Soll er nach dem Schließen des Fensters weiterlaufen? Das Fenster verfolgt ihn beim nächsten Öffnen wieder; Nein hält ihn an und speichert seinen Checkpoint.</translation>
    </message>
    <message>
        <location filename="../app/gui/shell/main_window_menus.cpp" line="+45"/>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open Image...</source>
        <translation>Bild &amp;öffnen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Image</source>
        <translation>Bild öffnen</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open &amp;DICOM Folder...</source>
        <translation>&amp;DICOM-Ordner öffnen...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open DICOM Folder</source>
        <translation>DICOM-Ordner öffnen</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Open &amp;Label Map...</source>
        <translation>&amp;Labelmap öffnen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Label Map</source>
        <translation>Labelmap öffnen</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>Images (%1);;All files (*)</source>
        <translation>Bilder (%1);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Open from S&amp;hare...</source>
        <translation>Aus der &amp;Freigabe öffnen...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open the &amp;Sample Study</source>
        <translation>&amp;Beispielstudie öffnen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Import into Share...</source>
        <translation>In die Freigabe &amp;importieren...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Query/Retrieve from &amp;PACS...</source>
        <translation>Abfrage/Abruf aus &amp;PACS...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label maps (%1);;All files (*)</source>
        <translation>Labelmaps (%1);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open DICOM S&amp;EG...</source>
        <translation>DICOM-S&amp;EG öffnen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the segmentation was drawn on first</source>
        <translation>Öffnen Sie zuerst das Bild, auf dem die Segmentierung erstellt wurde</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open DICOM SEG</source>
        <translation>DICOM-SEG öffnen</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+10"/>
        <source>DICOM (*.dcm);;All files (*)</source>
        <translation>DICOM (*.dcm);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Open &amp;RT Structure Set...</source>
        <translation>&amp;RT Structure Set öffnen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the structures were drawn on first</source>
        <translation>Öffnen Sie zuerst das Bild, auf dem die Strukturen gezeichnet wurden</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open RT Structure Set</source>
        <translation>RT Structure Set öffnen</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open Labels from &amp;Share...</source>
        <translation>Labels aus &amp;Freigabe öffnen...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1: the share holds no label set revision</source>
        <translation>%1: Die Freigabe enthält keine Revision eines Labelsatzes</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Open Labels from Share</source>
        <translation>Labels aus Freigabe öffnen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision:</source>
        <translation>Revision:</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 / %2 r%3 is not bound to an image on the share: open its image first</source>
        <translation>%1 / %2 r%3 ist an kein Bild in der Freigabe gebunden: Öffnen Sie zuerst sein Bild</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Recent Studies</source>
        <translation>Letzte Studien</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Save to Share</source>
        <translation>In Freigabe &amp;speichern</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save to Share &amp;As...</source>
        <translation>In Freigabe speichern &amp;unter...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save &amp;Labels As...</source>
        <translation>Labels speichern u&amp;nter...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save Labels As</source>
        <translation>Labels speichern unter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</source>
        <translation>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Save &amp;Screenshot...</source>
        <translation>S&amp;creenshot speichern...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save Screenshot</source>
        <translation>Screenshot speichern</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PNG (*.png)</source>
        <translation>PNG (*.png)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Export</source>
        <translation>E&amp;xportieren</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Send to PA&amp;CS...</source>
        <translation>An P&amp;ACS senden...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open a study first: Send to PACS sends its labels as a DICOM SEG with their measurement report</source>
        <translation>Öffnen Sie zuerst eine Studie: „An PACS senden“ sendet ihre Labels als DICOM-SEG mit ihrem Messbericht</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Send to PACS Includes an &amp;RT Structure Set</source>
        <translation>Senden an PACS schließt ein &amp;RT Structure Set ein</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;Preferences...</source>
        <translation>&amp;Einstellungen...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Edit</source>
        <translation>&amp;Bearbeiten</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;AI</source>
        <translation>&amp;KI</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Everything</source>
        <translation>&amp;Alles segmentieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Selected Classes</source>
        <translation>Ausgewählte &amp;Klassen segmentieren</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model &amp;Registry...</source>
        <translation>Modell&amp;verzeichnis...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Get Models...</source>
        <translation>&amp;Modelle holen...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Review</source>
        <translation>&amp;Prüfung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Submit for Review</source>
        <translation>Zur Prüfung &amp;einreichen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Approve</source>
        <translation>&amp;Freigeben</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Send &amp;Back...</source>
        <translation>&amp;Zurückschicken...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Layout</source>
        <translation>Anordnung</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1 x 1</source>
        <translation>1 x 1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>2 x 2</source>
        <translation>2 x 2</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>1 + 3</source>
        <translation>1 + 3</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Panels</source>
        <translation>Bedienfelder</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Window/Level</source>
        <translation>Fensterung</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Automatic (image range)</source>
        <translation>Automatisch (Bildbereich)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Reset Views</source>
        <translation>Ansichten &amp;zurücksetzen</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label &amp;Outlines</source>
        <translation>Label-&amp;Konturen</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Slices in &amp;3D</source>
        <translation>Schichten in &amp;3D</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Show &amp;Crosshair</source>
        <translation>&amp;Fadenkreuz anzeigen</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Keyboard Shortcuts and Mouse</source>
        <translation>&amp;Tastenkürzel und Maus</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Delineate</source>
        <translation>&amp;Über Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About Delineate</source>
        <translation>Über Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate %1: 3D medical image segmentation and annotation.</source>
        <translation>Delineate %1: Segmentierung und Annotation medizinischer 3D-Bilder.</translation>
    </message>
    <message>
        <location filename="../app/gui/base/window_level.cpp" line="+32"/>
        <source>Soft tissue</source>
        <translation>Weichteil</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lung</source>
        <translation>Lunge</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bone</source>
        <translation>Knochen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brain</source>
        <translation>Gehirn</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelDownloadsDialog</name>
    <message>
        <location filename="../app/gui/ai/model_downloads.cpp" line="+67"/>
        <source>Get Models</source>
        <translation>Modelle holen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model weights are not installed with Delineate. Download a known model or one from a URL (its SHA-256 is checked before it is used), or register a file you already have. Engines find them as model:NAME.</source>
        <translation>Modellgewichte werden nicht mit Delineate installiert. Laden Sie ein bekanntes Modell oder eines von einer URL herunter (sein SHA-256 wird vor der Verwendung geprüft) oder registrieren Sie eine Datei, die Sie bereits haben. Engines finden sie als model:NAME.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Known public models:</source>
        <translation>Bekannte öffentliche Modelle:</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+11"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+11"/>
        <location line="+156"/>
        <source>Licence</source>
        <translation>Lizenz</translation>
    </message>
    <message>
        <location line="-167"/>
        <location line="+11"/>
        <source>Size</source>
        <translation>Größe</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Where from</source>
        <translation>Herkunft</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>On this computer:</source>
        <translation>Auf diesem Computer:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>File</source>
        <translation>Datei</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SHA-256</source>
        <translation>SHA-256</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>a known model&apos;s name, or https://...</source>
        <translation>Name eines bekannten Modells oder https://...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the name engines find it by (a known model&apos;s own by default)</source>
        <translation>der Name, unter dem Engines es finden (standardmäßig der des bekannten Modells)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>optional: the SHA-256 the file must have</source>
        <translation>optional: der SHA-256, den die Datei haben muss</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model or URL:</source>
        <translation>Modell oder URL:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SHA-256:</source>
        <translation>SHA-256:</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Download</source>
        <translation>Herunterladen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Register File...</source>
        <translation>Datei registrieren...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Use for VISTA-3D</source>
        <translation>Für VISTA-3D verwenden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel Download</source>
        <translation>Download abbrechen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+4"/>
        <source>Register a Model File</source>
        <translation>Modelldatei registrieren</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Model weights (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>Modellgewichte (*.pt *.pth *.safetensors);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Name engines find it by:</source>
        <translation>Name, unter dem Engines es finden:</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>no direct download: %1</source>
        <translation>kein direkter Download: %1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(verified)</source>
        <translation>(geprüft)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>(no published hash)</source>
        <translation>(kein veröffentlichter Hash)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>A URL needs a name: what engines will find it by.</source>
        <translation>Eine URL braucht einen Namen: den, unter dem Engines sie finden.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 is neither a known model nor an http(s) URL.</source>
        <translation>%1 ist weder ein bekanntes Modell noch eine http(s)-URL.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 has no direct download: get %2 from %3 (licence: %4), then Register File.</source>
        <translation>%1 hat keinen direkten Download: Holen Sie %2 von %3 (Lizenz: %4), dann Datei registrieren.</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>%1

From: %2
Licence: %3
Size: %4
SHA-256: %5

Accept the licence and download?</source>
        <translation>%1

Von: %2
Lizenz: %3
Größe: %4
SHA-256: %5

Lizenz annehmen und herunterladen?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not published</source>
        <translation>nicht veröffentlicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>none published (recorded as unverified)</source>
        <translation>keiner veröffentlicht (als ungeprüft vermerkt)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Downloading %1...</source>
        <translation>%1 wird heruntergeladen...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: %2 MB, SHA-256 %3 (%4). Engines find it as model:%1.</source>
        <translation>%1: %2 MB, SHA-256 %3 (%4). Engines finden es als model:%1.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>verified</source>
        <translation>geprüft</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no published hash to check it against</source>
        <translation>kein veröffentlichter Hash zum Prüfen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Resumed: %1 bytes from an earlier download, %2 broken connection(s).</source>
        <translation>Fortgesetzt: %1 Bytes aus einem früheren Download, %2 abgebrochene Verbindung(en).</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Hashing %1...</source>
        <translation>%1 wird gehasht...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 registered: %2 (SHA-256 %3). Engines find it as model:%1.</source>
        <translation>%1 registriert: %2 (SHA-256 %3). Engines finden es als model:%1.</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>The VISTA-3D checkpoint is now %1.</source>
        <translation>Der VISTA-3D-Checkpoint ist jetzt %1.</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelRegistryDialog</name>
    <message>
        <location filename="../app/gui/ai/model_registry.cpp" line="+131"/>
        <source>Model Registry</source>
        <translation>Modellverzeichnis</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models, every checkpoint revision. Choose one to see its Dice per structure, two to compare them; &quot;Use as AI engine&quot; segments with the chosen one.</source>
        <translation>Die trainierten Modelle der Freigabe, jede Checkpoint-Revision. Eine wählen, um ihren Dice je Struktur zu sehen, zwei zum Vergleichen; „Als KI-Engine verwenden“ segmentiert mit der gewählten.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>Modell</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision</source>
        <translation>Revision</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Architecture</source>
        <translation>Architektur</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Classes</source>
        <translation>Klassen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Validation Dice</source>
        <translation>Validierungs-Dice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dataset</source>
        <translation>Datensatz</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Iteration</source>
        <translation>Iteration</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved by</source>
        <translation>Gespeichert von</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved</source>
        <translation>Gespeichert</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Refresh</source>
        <translation>Aktualisieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Use as AI engine</source>
        <translation>Als KI-Engine verwenden</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>No share is open: open a study from a share first (File &gt; Open from Share)</source>
        <translation>Keine Freigabe geöffnet: zuerst eine Studie aus einer Freigabe öffnen (Datei &gt; Aus Freigabe öffnen)</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>not validated</source>
        <translation>nicht validiert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>These weights (iteration %1) were not validated; the last validation, at iteration %2, measured earlier weights</source>
        <translation>Diese Gewichte (Iteration %1) wurden nicht validiert; die letzte Validierung, bei Iteration %2, maß frühere Gewichte</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>These weights (iteration %1) were not validated</source>
        <translation>Diese Gewichte (Iteration %1) wurden nicht validiert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validated at iteration %1</source>
        <translation>Validiert bei Iteration %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The run&apos;s best validation Dice up to these weights: %1</source>
        <translation>Bester Validierungs-Dice des Laufs bis zu diesen Gewichten: %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 v%2</source>
        <translation>%1 v%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>case list</source>
        <translation>Fallliste</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(%1 train, %2 validation)</source>
        <translation>(%1 Training, %2 Validierung)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>being trained by %1</source>
        <translation>wird von %1 trainiert</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>The share has no trained model yet: train one in the Training dock</source>
        <translation>Die Freigabe hat noch kein trainiertes Modell: eines im Training-Dock trainieren</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint revisions: %1. Choose one, or two to compare</source>
        <translation>Checkpoint-Revisionen: %1. Eine wählen, oder zwei zum Vergleichen</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+18"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="-18"/>
        <location line="+18"/>
        <source>Structure</source>
        <translation>Struktur</translation>
    </message>
    <message>
        <location line="-18"/>
        <location line="+18"/>
        <source>Dice</source>
        <translation>Dice</translation>
    </message>
    <message>
        <location line="-14"/>
        <source>Choose one revision, or two to compare</source>
        <translation>Eine Revision wählen, oder zwei zum Vergleichen</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Difference</source>
        <translation>Differenz</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>%1: not validated (iteration %2; the last validation, at iteration %3, measured earlier weights)</source>
        <translation>%1: nicht validiert (Iteration %2; die letzte Validierung, bei Iteration %3, maß frühere Gewichte)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: not validated (iteration %2)</source>
        <translation>%1: nicht validiert (Iteration %2)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: validation Dice %2 (structures: %3)</source>
        <translation>%1: Validierungs-Dice %2 (Strukturen: %3)</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+13"/>
        <location line="+1"/>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>validated at iteration %1</source>
        <translation>validiert bei Iteration %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>at iteration %1</source>
        <translation>bei Iteration %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>learnt from dataset %1 version %2</source>
        <translation>gelernt aus Datensatz %1 Version %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>saved by %1</source>
        <translation>gespeichert von %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 against %2: validation Dice %3 and %4; structures better: %5, worse: %6</source>
        <translation>%1 gegen %2: Validierungs-Dice %3 und %4; Strukturen besser: %5, schlechter: %6</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+1"/>
        <source>none (not validated)</source>
        <translation>keine (nicht validiert)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsBrowserDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_browser.cpp" line="+129"/>
        <source>Query/Retrieve from PACS</source>
        <translation>Abfrage/Abruf aus PACS</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Doe^J*</source>
        <translation>Mustermann^M*</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>from YYYY-MM-DD</source>
        <translation>von JJJJ-MM-TT</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>bis JJJJ-MM-TT</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any</source>
        <translation>Beliebig</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Search</source>
        <translation>&amp;Suchen</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Server:</source>
        <translation>Server:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient name:</source>
        <translation>Patientenname:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient ID:</source>
        <translation>Patienten-ID:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Accession:</source>
        <translation>Accession-Nr.:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Modality:</source>
        <translation>Modalität:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study date:</source>
        <translation>Studiendatum:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Description:</source>
        <translation>Beschreibung:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Patient</source>
        <translation>Patient</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Patient ID</source>
        <translation>Patienten-ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Birth date</source>
        <translation>Geburtsdatum</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Study date</source>
        <translation>Studiendatum</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+2"/>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Accession</source>
        <translation>Accession-Nr.</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modalities</source>
        <translation>Modalitäten</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Series</source>
        <translation>Serien</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Number</source>
        <translation>Nummer</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modality</source>
        <translation>Modalität</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Instances</source>
        <translation>Instanzen</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Import into the share:</source>
        <translation>In die Freigabe importieren:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Off: the series is kept in this computer&apos;s cache for a look, not imported</source>
        <translation>Aus: die Serie wird nur zum Ansehen im Cache dieses Computers gehalten, nicht importiert</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Retrieve</source>
        <translation>&amp;Abrufen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The chosen series, or all of the study&apos;s when none is chosen</source>
        <translation>Die gewählten Serien oder, wenn keine gewählt ist, alle der Studie</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open</source>
        <translation>&amp;Öffnen</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Share to import into</source>
        <translation>Freigabe für den Import</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+56"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>Kein PACS-Server eingerichtet: fügen Sie einen unter Einstellungen &gt; PACS-Server hinzu</translation>
    </message>
    <message>
        <location line="-17"/>
        <source>Working</source>
        <translation>In Arbeit</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Searching</source>
        <translation>Suche</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieving</source>
        <translation>Abruf</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Importing into the share</source>
        <translation>Import in die Freigabe</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cancelling...</source>
        <translation>Wird abgebrochen...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Study date: &apos;%1&apos; is not a date (YYYY-MM-DD)</source>
        <translation>Studiendatum: „%1“ ist kein Datum (JJJJ-MM-TT)</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Searching %1...</source>
        <translation>%1 wird durchsucht...</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Search cancelled</source>
        <translation>Suche abgebrochen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search failed: %1</source>
        <translation>Suche fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Studies found on %1: %2</source>
        <translation>Auf %1 gefundene Studien: %2</translation>
    </message>
    <message>
        <location line="+122"/>
        <source>Instances retrieved: %1 (%2 MB), already here: %3</source>
        <translation>Abgerufene Instanzen: %1 (%2 MB), bereits vorhanden: %3</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>instances that did not arrive: %1 (Retrieve again asks for them)</source>
        <translation>nicht angekommene Instanzen: %1 (ein erneuter Abruf fordert sie an)</translation>
    </message>
    <message numerus="yes">
        <location line="+14"/>
        <source>Imported into the share: %n series, files copied: %1</source>
        <translation>
            <numerusform>In die Freigabe importiert: %n Serie, kopierte Dateien: %1</numerusform>
            <numerusform>In die Freigabe importiert: %n Serien, kopierte Dateien: %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="-123"/>
        <source>Listing the series of the study...</source>
        <translation>Die Serien der Studie werden aufgelistet...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The series could not be listed: %1</source>
        <translation>Die Serien konnten nicht aufgelistet werden: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+23"/>
        <source>%n series in the study</source>
        <translation>
            <numerusform>%n Serie in der Studie</numerusform>
            <numerusform>%n Serien in der Studie</numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Choose a study first (its series are listed below it)</source>
        <translation>Wählen Sie zuerst eine Studie (ihre Serien werden darunter aufgeführt)</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Choose the share to import into, or turn Import into the share off for a look</source>
        <translation>Wählen Sie die Freigabe, in die importiert wird, oder schalten Sie „In die Freigabe importieren“ aus, um nur anzusehen</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No author name: the retrieve was not started</source>
        <translation>Kein Autorname: der Abruf wurde nicht gestartet</translation>
    </message>
    <message numerus="yes">
        <location line="+10"/>
        <source>Retrieving %n series from %1...</source>
        <translation>
            <numerusform>%n Serie wird von %1 abgerufen...</numerusform>
            <numerusform>%n Serien werden von %1 abgerufen...</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Retrieve cancelled: what arrived stays, Retrieve again finishes it</source>
        <translation>Abruf abgebrochen: bereits Angekommenes bleibt, ein erneuter Abruf schließt ihn ab</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieve failed: %1</source>
        <translation>Abruf fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Import into the share failed: %1</source>
        <translation>Import in die Freigabe fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The audit record was not written: %1</source>
        <translation>Der Audit-Eintrag wurde nicht geschrieben: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsPeer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_peer.cpp" line="+93"/>
        <source>token</source>
        <translation>Token</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>password</source>
        <translation>Passwort</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: no %2 is stored for this server (set it in Preferences, PACS Servers)</source>
        <translation>%1: für diesen Server ist kein %2 gespeichert (legen Sie es unter Einstellungen &gt; PACS-Server fest)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The PACS answered &apos;%1&apos; as a UID, which is not one: not used as a folder name</source>
        <translation>Das PACS lieferte „%1“ als UID, was keine gültige UID ist: nicht als Ordnername verwendet</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsSendDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_send.cpp" line="+35"/>
        <source>Send to PACS</source>
        <translation>An PACS senden</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Send</source>
        <translation>&amp;Senden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>Schließen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Server:</source>
        <translation>Server:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What:</source>
        <translation>Was:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>the labels as a DICOM SEG and their measurement report (SR)</source>
        <translation>die Labels als DICOM-SEG und ihr Messbericht (SR)</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+26"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>Kein PACS-Server eingerichtet: fügen Sie einen unter Einstellungen &gt; PACS-Server hinzu</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Cancelling...</source>
        <translation>Wird abgebrochen...</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+6"/>
        <location line="+5"/>
        <source>The files to send could not be made: %1</source>
        <translation>Die zu sendenden Dateien konnten nicht erstellt werden: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Sending the SEG and its report to %1...</source>
        <translation>SEG und Bericht werden an %1 gesendet...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Sent to %1 (%2): the SEG and its measurement report</source>
        <translation>An %1 (%2) gesendet: das SEG und sein Messbericht</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Sending cancelled: the PACS may hold part of it</source>
        <translation>Senden abgebrochen: das PACS hat möglicherweise einen Teil davon erhalten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not sent: %1</source>
        <translation>Nicht gesendet: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers.cpp" line="+55"/>
        <source>%1 &apos;%2&apos; does not exist</source>
        <translation>%1: „%2“ existiert nicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; is not a file</source>
        <translation>%1: „%2“ ist keine Datei</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; cannot be read</source>
        <translation>%1: „%2“ kann nicht gelesen werden</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>the keyring did not answer within %1 s</source>
        <translation>der Schlüsselbund hat nicht innerhalb von %1 s geantwortet</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>keyring error %1</source>
        <translation>Schlüsselbund-Fehler %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The name is empty</source>
        <translation>Der Name ist leer</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 &apos;%2&apos; is not an AE title (1 to 16 characters, no backslash)</source>
        <translation>%1: „%2“ ist kein gültiger AE-Titel (1 bis 16 Zeichen, kein Backslash)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AE title</source>
        <translation>AE-Titel</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The host is empty</source>
        <translation>Der Host ist leer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Port %1 is not a port (1 to 65535)</source>
        <translation>Port %1 ist kein gültiger Port (1 bis 65535)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our AE title</source>
        <translation>Eigener AE-Titel</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>C-MOVE AE title</source>
        <translation>C-MOVE-AE-Titel</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-MOVE port %1 is not a port (1 to 65535)</source>
        <translation>C-MOVE-Port %1 ist kein gültiger Port (1 bis 65535)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs the CA file the PACS&apos;s certificate chains to</source>
        <translation>TLS braucht die CA-Datei, auf die die Zertifikatskette des PACS zurückgeht</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>URL &apos;%1&apos; is not an http:// or https:// URL</source>
        <translation>URL „%1“ ist keine http://- oder https://-URL</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>URL &apos;%1&apos; holds a user name or password: use the authentication fields</source>
        <translation>URL „%1“ enthält einen Benutzernamen oder ein Passwort: verwenden Sie die Authentifizierungsfelder</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs an https:// URL</source>
        <translation>TLS braucht eine https://-URL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Basic authentication needs a user name</source>
        <translation>Basic-Authentifizierung braucht einen Benutzernamen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>CA file</source>
        <translation>CA-Datei</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate</source>
        <translation>Eigenes Zertifikat</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key</source>
        <translation>Eigener privater Schlüssel</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our private key needs our certificate</source>
        <translation>Der eigene private Schlüssel braucht das eigene Zertifikat</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate needs its private key</source>
        <translation>Das eigene Zertifikat braucht seinen privaten Schlüssel</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Requests in flight %1 is not between 1 and 16</source>
        <translation>Gleichzeitige Anfragen: %1 liegt nicht zwischen 1 und 16</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>PACS server &apos;%1&apos;: %2</source>
        <translation>PACS-Server „%1“: %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Two PACS servers are named &apos;%1&apos;</source>
        <translation>Zwei PACS-Server heißen „%1“</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>The settings file %1 could not be written</source>
        <translation>Die Einstellungsdatei %1 konnte nicht geschrieben werden</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>no keyring answered (%1): the secret of &apos;%2&apos; is kept for this session only</source>
        <translation>kein Schlüsselbund hat geantwortet (%1): die Zugangsdaten von „%2“ werden nur für diese Sitzung aufbewahrt</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>the keyring holds no secret for &apos;%1&apos;</source>
        <translation>der Schlüsselbund enthält keine Zugangsdaten für „%1“</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no keyring answered (%1): no secret for &apos;%2&apos;</source>
        <translation>kein Schlüsselbund hat geantwortet (%1): keine Zugangsdaten für „%2“</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>no keyring answered (%1): a secret of &apos;%2&apos; may still be in it</source>
        <translation>kein Schlüsselbund hat geantwortet (%1): Zugangsdaten von „%2“ sind möglicherweise noch darin gespeichert</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServerDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_dialog.cpp" line="+31"/>
        <source>Add PACS Server</source>
        <translation>PACS-Server hinzufügen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Edit PACS Server</source>
        <translation>PACS-Server bearbeiten</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DIMSE (C-FIND, C-GET or C-MOVE)</source>
        <translation>DIMSE (C-FIND, C-GET oder C-MOVE)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb (QIDO-RS, WADO-RS)</source>
        <translation>DICOMweb (QIDO-RS, WADO-RS)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Protocol:</source>
        <translation>Protokoll:</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the PACS&apos;s AE title</source>
        <translation>AE-Titel des PACS</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AE title:</source>
        <translation>AE-Titel:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Host:</source>
        <translation>Host:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Port:</source>
        <translation>Port:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our AE title:</source>
        <translation>Eigener AE-Titel:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-GET</source>
        <translation>C-GET</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE to our storage SCP</source>
        <translation>C-MOVE an den eigenen Storage-SCP</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Retrieve by:</source>
        <translation>Abruf per:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>our AE title</source>
        <translation>eigener AE-Titel</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE destination AE title:</source>
        <translation>C-MOVE-Ziel-AE-Titel:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>C-MOVE port we listen on:</source>
        <translation>Eigener C-MOVE-Empfangsport:</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>URL:</source>
        <translation>URL:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>None</source>
        <translation>Keine</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User name and password (basic)</source>
        <translation>Benutzername und Passwort (Basic)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Token (bearer)</source>
        <translation>Token (Bearer)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Authentication:</source>
        <translation>Authentifizierung:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>User:</source>
        <translation>Benutzer:</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Kept in the desktop keyring, never in the settings file.</source>
        <translation>Im Schlüsselbund des Desktops gespeichert, nie in der Einstellungsdatei.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Use TLS</source>
        <translation>TLS verwenden</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS:</source>
        <translation>TLS:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>PEM files (*.pem *.crt *.key);;All files (*)</source>
        <translation>PEM-Dateien (*.pem *.crt *.key);;Alle Dateien (*)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CA file:</source>
        <translation>CA-Datei:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Certificate Authorities (PEM)</source>
        <translation>Zertifizierungsstellen (PEM)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb: the system&apos;s certificate authorities</source>
        <translation>DICOMweb: die Zertifizierungsstellen des Systems</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate:</source>
        <translation>Eigenes Zertifikat:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Certificate (PEM)</source>
        <translation>Eigenes Zertifikat (PEM)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>only where the PACS asks for one</source>
        <translation>nur wenn das PACS eines verlangt</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key:</source>
        <translation>Eigener privater Schlüssel:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Private Key (PEM)</source>
        <translation>Eigener privater Schlüssel (PEM)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Associations (DIMSE) or HTTP requests (DICOMweb) at once when retrieving</source>
        <translation>Gleichzeitige Assoziationen (DIMSE) oder HTTP-Anfragen (DICOMweb) beim Abrufen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Requests in flight:</source>
        <translation>Gleichzeitige Anfragen:</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Another server is named &apos;%1&apos;</source>
        <translation>Ein anderer Server heißt bereits „%1“</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The token is empty</source>
        <translation>Das Token ist leer</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The password is empty</source>
        <translation>Das Passwort ist leer</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Token:</source>
        <translation>Token:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Password:</source>
        <translation>Passwort:</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServersPage</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_page.cpp" line="+46"/>
        <source>The PACS the window queries and retrieves from. Passwords and tokens are kept in the desktop keyring, never in the settings file.</source>
        <translation>Die PACS, die das Fenster abfragt und von denen es abruft. Passwörter und Tokens werden im Schlüsselbund des Desktops gespeichert, nie in der Einstellungsdatei.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>&amp;Add...</source>
        <translation>&amp;Hinzufügen...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Edit...</source>
        <translation>&amp;Bearbeiten...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Remove</source>
        <translation>&amp;Entfernen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Test</source>
        <translation>&amp;Testen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-ECHO (DIMSE) or a study query (DICOMweb): whether the server answers us</source>
        <translation>C-ECHO (DIMSE) oder eine Studienabfrage (DICOMweb): ob der Server uns antwortet</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <location line="+83"/>
        <location line="+10"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Asking %1 (%2)...</source>
        <translation>%1 (%2) wird angefragt...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 (%2) answered in %3 ms</source>
        <translation>%1 (%2) hat in %3 ms geantwortet</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PdfReport</name>
    <message>
        <location filename="../app/gui/reports/pdf_report.cpp" line="+53"/>
        <source>label %1</source>
        <translation>Label %1</translation>
    </message>
    <message>
        <location line="+183"/>
        <source>Page %1 of %2</source>
        <translation>Seite %1 von %2</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+194"/>
        <source>De-identified report</source>
        <translation>Anonymisierter Bericht</translation>
    </message>
    <message>
        <location line="-194"/>
        <location line="+203"/>
        <source>Segmentation report</source>
        <translation>Segmentierungsbericht</translation>
    </message>
    <message>
        <location line="-199"/>
        <source>Patient: %1</source>
        <translation>Patient: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study: %1</source>
        <translation>Studie: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Series: %1</source>
        <translation>Serie: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Report date: %1</source>
        <translation>Berichtsdatum: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Image: %1 × %2 × %3 voxels of %4 × %5 × %6 mm%7</source>
        <translation>Bild: %1 × %2 × %3 Voxel zu %4 × %5 × %6 mm%7</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, intensities in HU</source>
        <translation>, Intensitäten in HU</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Software: Delineate</source>
        <translation>Software: Delineate</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Software: Delineate %1</source>
        <translation>Software: Delineate %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Label statistics</source>
        <translation>Label-Statistik</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Label statistics (continued)</source>
        <translation>Label-Statistik (Fortsetzung)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (HU)</source>
        <translation> (HU)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Voxels</source>
        <translation>Voxel</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>Volumen</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>%1 %2: %3, centroid (%4, %5, %6) mm LPS</source>
        <translation>%1 %2: %3, Schwerpunkt (%4, %5, %6) mm LPS</translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Mean</source>
        <translation>Mittelwert</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SD</source>
        <translation>SD</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Min</source>
        <translation>Min</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Max</source>
        <translation>Max</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Median</source>
        <translation>Median</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Longest diameter (mm)</source>
        <translation>Größter Durchmesser (mm)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No labels.</source>
        <translation>Keine Labels.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Key images</source>
        <translation>Schlüsselbilder</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>Koronal</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>%1, slice %2 of %3</source>
        <translation>%1, Schicht %2 von %3</translation>
    </message>
    <message>
        <location line="+90"/>
        <source>Segmentation report: %1</source>
        <translation>Segmentierungsbericht: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PreferencesDialog</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="-134"/>
        <source>Preferences</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>General</source>
        <translation>Allgemein</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>PACS Servers</source>
        <translation>PACS-Server</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System default</source>
        <translation>Systemstandard</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Language:</source>
        <translation>Sprache:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Author name for saves:</source>
        <translation>Autorname beim Speichern:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Autosave unsaved edits every:</source>
        <translation>Ungespeicherte Änderungen automatisch sichern alle:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>none: the classic CPU engine</source>
        <translation>keiner: die klassische CPU-Engine</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>VISTA-3D checkpoint:</source>
        <translation>VISTA-3D-Checkpoint:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AI device:</source>
        <translation>KI-Gerät:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Automatic (reduced on software OpenGL)</source>
        <translation>Automatisch (reduziert bei Software-OpenGL)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Full</source>
        <translation>Voll</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reduced</source>
        <translation>Reduziert</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>How finely the 3D view meshes large labels. Exported surface files are always meshed at full detail.</source>
        <translation>Wie fein die 3D-Ansicht große Labels vernetzt. Exportierte Oberflächendateien werden immer in voller Detailstufe vernetzt.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>3D surface detail:</source>
        <translation>3D-Oberflächendetail:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>VISTA-3D Checkpoint</source>
        <translation>VISTA-3D-Checkpoint</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoints (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>Checkpoints (*.pt *.pth *.safetensors);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SessionFiles</name>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+148"/>
        <source>The recovered labels do not fit %1&apos;s grid</source>
        <translation>Die wiederhergestellten Labels passen nicht zum Raster von %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Recovered the unsaved edits: save them to keep them</source>
        <translation>Ungespeicherte Änderungen wiederhergestellt: Speichern Sie sie, um sie zu behalten</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Unsaved Edits</source>
        <translation>Ungespeicherte Änderungen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The labels have unsaved edits. Save them to the share?</source>
        <translation>Die Labels enthalten ungespeicherte Änderungen. In der Freigabe speichern?</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Autosave is off: %1</source>
        <translation>Automatische Sicherung ist aus: %1</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Autosave failed: %1</source>
        <translation>Automatische Sicherung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Save to Share</source>
        <translation>In Freigabe speichern</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+81"/>
        <source>a folder on the network share; Create Share makes a new one</source>
        <translation>ein Ordner auf der Netzwerkfreigabe; „Freigabe anlegen“ legt eine neue an</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+1"/>
        <source>Create Share</source>
        <translation>Freigabe anlegen</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Make this folder a new share store</source>
        <translation>Diesen Ordner zu einer neuen Freigabe machen</translation>
    </message>
    <message>
        <location line="+12"/>
        <location filename="../app/gui/study/share_import.cpp" line="+5"/>
        <source>Share folder:</source>
        <translation>Freigabeordner:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study:</source>
        <translation>Studie:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>Labelsatz:</translation>
    </message>
    <message>
        <location line="+4"/>
        <location filename="../app/gui/study/share_import.cpp" line="+4"/>
        <location line="+23"/>
        <source>Share Folder</source>
        <translation>Freigabeordner</translation>
    </message>
    <message>
        <location line="+7"/>
        <location filename="../app/gui/study/share_import.cpp" line="-16"/>
        <source>Folder for the New Share</source>
        <translation>Ordner für die neue Freigabe</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="-40"/>
        <location line="+68"/>
        <source>Choose a folder first.</source>
        <translation>Zuerst einen Ordner wählen.</translation>
    </message>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="-66"/>
        <source>%1 is a share already.</source>
        <translation>%1 ist bereits eine Freigabe.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: the folder cannot be created</source>
        <translation>%1: der Ordner kann nicht angelegt werden</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No share was created: %1</source>
        <translation>Es wurde keine Freigabe angelegt: %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Created a share in %1.</source>
        <translation>Freigabe in %1 angelegt.</translation>
    </message>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+31"/>
        <source>No share to save to: use Save to Share As</source>
        <translation>Keine Freigabe zum Speichern: „In Freigabe speichern unter“ verwenden</translation>
    </message>
    <message>
        <location line="+95"/>
        <source>Finish the stroke before saving</source>
        <translation>Vor dem Speichern den Pinselstrich beenden</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 / %2: study and label set names may hold letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos; only</source>
        <translation>%1 / %2: Namen von Studien und Labelsätzen dürfen nur Buchstaben, Ziffern, &apos;-&apos;, &apos;_&apos; und &apos;.&apos; enthalten</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) before saving</source>
        <translation>Warten Sie, bis der laufende Vorgang fertig ist (oder brechen Sie ihn ab), bevor Sie speichern</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Not saved: out of memory copying the labels for the save</source>
        <translation>Nicht gespeichert: kein Speicher frei, um die Labels für das Speichern zu kopieren</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Saving to the share</source>
        <translation>Speichern in die Freigabe</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>The cancelled save finished when the share answered: %1 / %2 revision %3 (the labels in the window are still marked unsaved)</source>
        <translation>Das abgebrochene Speichern wurde beendet, als die Freigabe antwortete: %1 / %2 Revision %3 (die Labels im Fenster gelten weiter als ungespeichert)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Save cancelled: the share has not answered. The labels stay unsaved (and in the autosave journal). If the share answers before the revision is made, none is made.</source>
        <translation>Speichern abgebrochen: die Freigabe hat nicht geantwortet. Die Labels bleiben ungespeichert (und im Autosave-Journal). Antwortet die Freigabe, bevor die Revision angelegt ist, wird keine angelegt.</translation>
    </message>
    <message>
        <location line="-57"/>
        <source>Save cancelled; no revision was made</source>
        <translation>Speichern abgebrochen; es wurde keine Revision angelegt</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+123"/>
        <source>Not saved: %1</source>
        <translation>Nicht gespeichert: %1</translation>
    </message>
    <message>
        <location line="-184"/>
        <source>The audit record was not written: %1</source>
        <translation>Der Audit-Eintrag wurde nicht geschrieben: %1</translation>
    </message>
    <message>
        <location line="+133"/>
        <source>%1 on %2 is editing this label set too (since %3).</source>
        <translation>%1 auf %2 bearbeitet diesen Labelsatz ebenfalls (seit %3).</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Saved %1 / %2 revision %3</source>
        <translation>%1 / %2 als Revision %3 gespeichert</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Edits made during the save are not in it: the labels stay marked unsaved.</source>
        <translation>Änderungen während des Speicherns sind nicht enthalten: die Labels gelten weiter als ungespeichert.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Revision %1 was saved by someone else after revision %2, which your edits started from. Your labels are saved as revision %3 and marked as a conflict; nothing was overwritten. Compare the two revisions before going on.</source>
        <translation>Revision %1 wurde von jemand anderem nach Revision %2 gespeichert, auf der Ihre Änderungen beruhen. Ihre Labels wurden als Revision %3 gespeichert und als Konflikt markiert; nichts wurde überschrieben. Vergleichen Sie die beiden Revisionen, bevor Sie weiterarbeiten.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saved as a conflict revision</source>
        <translation>Als Konfliktrevision gespeichert</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Labels written to %1</source>
        <translation>Labels nach %1 geschrieben</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Delineate stopped on %1 with unsaved label edits of %2 (autosaved %3). Recover them?</source>
        <translation>Delineate wurde auf %1 mit ungespeicherten Label-Änderungen an %2 beendet (automatisch gesichert: %3). Wiederherstellen?</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Recover Unsaved Edits</source>
        <translation>Ungespeicherte Änderungen wiederherstellen</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Cannot recover: the image %1 is not there any more; the edits stay in %2</source>
        <translation>Wiederherstellung nicht möglich: Das Bild %1 ist nicht mehr vorhanden; die Änderungen bleiben in %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cannot recover: %1</source>
        <translation>Wiederherstellung nicht möglich: %1</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>The label set&apos;s lease was lost (%1): another user may be editing it; your next save may become a conflict revision</source>
        <translation>Die Bearbeitungssperre des Labelsatzes ging verloren (%1): Möglicherweise bearbeitet ihn ein anderer Benutzer; Ihre nächste Speicherung kann zu einer Konfliktrevision werden</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImportDialog</name>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="+71"/>
        <source>Import into Share</source>
        <translation>In die Freigabe importieren</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM folders or image files; several separated by ;</source>
        <translation>DICOM-Ordner oder Bilddateien; mehrere durch ; getrennt</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Folder...</source>
        <translation>Ordner...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files...</source>
        <translation>Dateien...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Import:</source>
        <translation>Importieren:</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>from the files (a DICOM study&apos;s UID, a volume file&apos;s name)</source>
        <translation>aus den Dateien (UID einer DICOM-Studie, Name einer Volumendatei)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study name:</source>
        <translation>Studienname:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>De-identify DICOM (PS3.15 basic profile; pseudonyms from a key kept off the share)</source>
        <translation>DICOM anonymisieren (PS3.15-Basisprofil; Pseudonyme aus einem Schlüssel außerhalb der Freigabe)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>key file (16+ bytes), not on the share</source>
        <translation>Schlüsseldatei (16+ Bytes), nicht auf der Freigabe</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Key:</source>
        <translation>Schlüssel:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Import</source>
        <translation>Importieren</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Import Folder</source>
        <translation>Ordner importieren</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Import Files</source>
        <translation>Dateien importieren</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Importing into %1...</source>
        <translation>Importiere nach %1...</translation>
    </message>
    <message>
        <location line="-24"/>
        <source>De-identification Key</source>
        <translation>Anonymisierungsschlüssel</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImporter</name>
    <message>
        <location line="+57"/>
        <source>An import is already running</source>
        <translation>Ein Import läuft bereits</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nothing to import: choose DICOM folders or image files</source>
        <translation>Nichts zu importieren: wählen Sie DICOM-Ordner oder Bilddateien</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose the share to import into</source>
        <translation>Wählen Sie die Freigabe, in die importiert wird</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>De-identification needs a key file (kept off the share)</source>
        <translation>Die Anonymisierung braucht eine Schlüsseldatei (außerhalb der Freigabe)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No author name: the import was not started</source>
        <translation>Kein Autorname: der Import wurde nicht gestartet</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Importing into %1</source>
        <translation>Import nach %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Import cancelled: what was copied stays, importing again finishes it</source>
        <translation>Import abgebrochen: bereits Kopiertes bleibt, ein erneuter Import schließt ihn ab</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import failed: %1</source>
        <translation>Import fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+11"/>
        <source>%n series imported: %1 files copied, %2 already on the share</source>
        <translation>
            <numerusform>%n Serie importiert: %1 Dateien kopiert, %2 bereits auf der Freigabe</numerusform>
            <numerusform>%n Serien importiert: %1 Dateien kopiert, %2 bereits auf der Freigabe</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not imported: %1</source>
        <translation>Nicht importiert: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (and %1 more)</source>
        <translation> (und %1 weitere)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>Der Audit-Eintrag wurde nicht geschrieben: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareReview</name>
    <message>
        <location filename="../app/gui/study/share_review.cpp" line="+71"/>
        <source>Send Back</source>
        <translation>Zurückschicken</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What should the author change? (stored with the review)</source>
        <translation>Was soll der Autor ändern? (wird mit der Prüfung gespeichert)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not sent back: say what to change in a comment</source>
        <translation>Nicht zurückgeschickt: sagen Sie in einem Kommentar, was zu ändern ist</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No share revision to review: open one from the share, or save the labels to the share first</source>
        <translation>Keine Share-Revision zu prüfen: öffnen Sie eine aus dem Share oder speichern Sie die Labels zuerst im Share</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The labels have unsaved edits: a review is of revision %1 as it is on the share. Save (a new revision) or undo the edits first.</source>
        <translation>Die Labels haben ungespeicherte Änderungen: eine Prüfung gilt Revision %1, wie sie im Share liegt. Speichern Sie zuerst (eine neue Revision) oder machen Sie die Änderungen rückgängig.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) first</source>
        <translation>Warten Sie zuerst, bis der laufende Auftrag endet (oder brechen Sie ihn ab)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 / %2 revision %3</source>
        <translation>%1 / %2 Revision %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 not recorded: %2</source>
        <translation>%1 nicht vermerkt: %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submission</source>
        <translation>Einreichung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approval</source>
        <translation>Freigabe</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sending back</source>
        <translation>Zurückschicken</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 submitted for review by %2</source>
        <translation>%1 von %2 zur Prüfung eingereicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 approved by %2</source>
        <translation>%1 von %2 freigegeben</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 sent back by %2</source>
        <translation>%1 von %2 zurückgeschickt</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>Der Audit-Eintrag wurde nicht geschrieben: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SlicePanel</name>
    <message>
        <location filename="../app/gui/views/view_panels.cpp" line="+26"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>Koronal</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>%1  %2 / %3</source>
        <translation>%1  %2 / %3</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>− point: not the object here</source>
        <translation>− Punkt: hier nicht das Objekt</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ point: the object is here</source>
        <translation>+ Punkt: hier ist das Objekt</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− box: drag over what is not the object</source>
        <translation>− Rechteck: über das ziehen, was nicht das Objekt ist</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ box: drag around the object</source>
        <translation>+ Rechteck: um das Objekt ziehen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− scribble: paint over what is not the object</source>
        <translation>− Strich: über das malen, was nicht das Objekt ist</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ scribble: paint over the object</source>
        <translation>+ Strich: über das Objekt malen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− lasso: circle what is not the object</source>
        <translation>− Lasso: umkreisen, was nicht das Objekt ist</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ lasso: circle part of the object</source>
        <translation>+ Lasso: einen Teil des Objekts umkreisen</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SliceRangeDialog</name>
    <message>
        <location filename="../app/gui/reports/slice_range_dialog.cpp" line="+17"/>
        <source>Statistics of a Slice Range</source>
        <translation>Statistik eines Schichtbereichs</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Coronal</source>
        <translation>Koronal</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Slices of the view:</source>
        <translation>Schichten der Ansicht:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>From slice:</source>
        <translation>Von Schicht:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>To slice:</source>
        <translation>Bis Schicht:</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyBrowserDialog</name>
    <message>
        <location filename="../app/gui/study/study_browser.cpp" line="+50"/>
        <source>Patient ID</source>
        <translation>Patienten-ID</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Patient</source>
        <translation>Patient</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Date</source>
        <translation>Datum</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modality</source>
        <translation>Modalität</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Description</source>
        <translation>Beschreibung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label sets</source>
        <translation>Labelsätze</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latest revision</source>
        <translation>Neueste Revision</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review</source>
        <translation>Prüfung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Editing</source>
        <translation>In Bearbeitung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study</source>
        <translation>Studie</translation>
    </message>
    <message>
        <location line="+105"/>
        <source>Open from Share</source>
        <translation>Aus der Freigabe öffnen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Share Folder...</source>
        <translation>Freigabeordner...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Search patient ID or name, description, study</source>
        <translation>Patienten-ID oder -name, Beschreibung, Studie suchen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any modality</source>
        <translation>Jede Modalität</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any label status</source>
        <translation>Jeder Labelstatus</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No labels</source>
        <translation>Keine Labels</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Being edited</source>
        <translation>In Bearbeitung</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Has revisions</source>
        <translation>Hat Revisionen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submitted for review</source>
        <translation>Zur Prüfung eingereicht</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approved</source>
        <translation>Freigegeben</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>from YYYY-MM-DD</source>
        <translation>von JJJJ-MM-TT</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>bis JJJJ-MM-TT</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Series:</source>
        <translation>Serie:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labels:</source>
        <translation>Labels:</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Make Dataset...</source>
        <translation>Datensatz erstellen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A training dataset of the chosen studies&apos; labels (choose several with Ctrl or Shift)</source>
        <translation>Ein Trainingsdatensatz aus den Labels der gewählten Studien (mehrere mit Strg oder Shift wählen)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Share Folder</source>
        <translation>Freigabeordner</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>%1: the share does not answer (a hung network mount?)</source>
        <translation>%1: die Freigabe antwortet nicht (eine hängende Netzwerkeinbindung?)</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Share: %1</source>
        <translation>Freigabe: %1</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Make Dataset</source>
        <translation>Datensatz erstellen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Approved revisions only</source>
        <translation>Nur freigegebene Revisionen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Studies (%1):</source>
        <translation>Studien (%1):</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>Labelsatz:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validation:</source>
        <translation>Validierung:</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>A dataset needs chosen studies, a name and a label set</source>
        <translation>Ein Datensatz braucht gewählte Studien, einen Namen und einen Labelsatz</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saving dataset %1...</source>
        <translation>Datensatz %1 wird gespeichert...</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Dataset %1 not saved: %2</source>
        <translation>Datensatz %1 nicht gespeichert: %2</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Saved dataset %1 version %2: %3 entries (%4 train, %5 validation)</source>
        <translation>Datensatz %1 Version %2 gespeichert: %3 Einträge (%4 Training, %5 Validierung)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1% of %2 studies rounds to none: one study validates so that the model is measured</source>
        <translation>%1 % von %2 Studien ergibt gerundet keine: eine Studie validiert, damit das Modell gemessen wird</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>warning: no validation study (one study cannot both train and validate): the model will not be validated</source>
        <translation>Warnung: keine Validierungsstudie (eine Studie kann nicht zugleich trainieren und validieren): das Modell wird nicht validiert</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>skipped %1</source>
        <translation>übersprungen: %1</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Reading the share&apos;s catalogue...</source>
        <translation>Der Katalog der Freigabe wird gelesen...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The share&apos;s catalogue could not be read: %1</source>
        <translation>Der Katalog der Freigabe konnte nicht gelesen werden: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>%n damaged catalogue entries skipped: %1</source>
        <translation>
            <numerusform>%n beschädigter Katalogeintrag übersprungen: %1</numerusform>
            <numerusform>%n beschädigte Katalogeinträge übersprungen: %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+70"/>
        <location line="+67"/>
        <source>approved</source>
        <translation>freigegeben</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>submitted</source>
        <translation>eingereicht</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>sent back</source>
        <translation>zurückgegeben</translation>
    </message>
    <message>
        <location line="-66"/>
        <source>not reviewed</source>
        <translation>nicht geprüft</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 of %2 studies shown: search to narrow them</source>
        <translation>%1 von %2 Studien angezeigt: suchen Sie, um sie einzugrenzen</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n studies</source>
        <translation>
            <numerusform>%n Studie</numerusform>
            <numerusform>%n Studien</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Reading %1 from the share...</source>
        <translation>%1 wird aus der Freigabe gelesen...</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>no single grid</source>
        <translation>kein einzelnes Gitter</translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>%1  %2  %3  (%4, %n file(s))</source>
        <translation>
            <numerusform>%1  %2  %3  (%4, %n Datei)</numerusform>
            <numerusform>%1  %2  %3  (%4, %n Dateien)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+6"/>
        <source>(the image only)</source>
        <translation>(nur das Bild)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(on another series)</source>
        <translation>(auf einer anderen Serie)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>RT Structure Set: %1  %2</source>
        <translation>RT Structure Set: %1  %2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Being edited now: %1</source>
        <translation>Wird gerade bearbeitet: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n series still being imported (not listed)</source>
        <translation>
            <numerusform>%n Serie wird noch importiert (nicht aufgeführt)</numerusform>
            <numerusform>%n Serien werden noch importiert (nicht aufgeführt)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No image series in this study (a share written before studies held images?)</source>
        <translation>Keine Bildserie in dieser Studie (eine Freigabe aus der Zeit, bevor Studien Bilder enthielten?)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Skipped: %1</source>
        <translation>Übersprungen: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyExports</name>
    <message>
        <location filename="../app/gui/reports/study_exports.cpp" line="+47"/>
        <source>ID %1</source>
        <translation>ID %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1, ID %2</source>
        <translation>%1, ID %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>accession %1</source>
        <translation>Accession-Nr. %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+12"/>
        <source>UID %1</source>
        <translation>UID %1</translation>
    </message>
    <message>
        <location line="-5"/>
        <source>#%1</source>
        <translation>#%1</translation>
    </message>
    <message numerus="yes">
        <location line="+79"/>
        <source>Statistics of %n label(s) written to %1</source>
        <translation>
            <numerusform>Statistik von %n Label nach %1 geschrieben</numerusform>
            <numerusform>Statistik von %n Labels nach %1 geschrieben</numerusform>
        </translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>Ein DICOM-SEG verweist auf die DICOM-Serie, auf der es erstellt wurde: Öffnen Sie die Studie aus ihrem DICOM-Ordner</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>DICOM SEG written to %1</source>
        <translation>DICOM-SEG nach %1 geschrieben</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG written to %1, measurement report to %2</source>
        <translation>DICOM-SEG nach %1 geschrieben, Messbericht nach %2</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>An RT Structure Set references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>Ein RT Structure Set verweist auf die DICOM-Serie, auf der es gezeichnet wurde: öffnen Sie die Studie aus ihrem DICOM-Ordner</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>RT Structure Set written to %1: %2 ROIs, %3 contours</source>
        <translation>RT Structure Set nach %1 geschrieben: %2 ROIs, %3 Konturen</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Cannot write the measurement report %1: a folder of that name is there; nothing was written</source>
        <translation>Der Messbericht %1 kann nicht geschrieben werden: dort liegt ein Ordner dieses Namens; nichts wurde geschrieben</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The measurement report %1 already exists; nothing was written (choose another name for the SEG, or allow replacing the report)</source>
        <translation>Der Messbericht %1 existiert bereits; nichts wurde geschrieben (wählen Sie einen anderen Namen für das SEG oder erlauben Sie das Ersetzen des Berichts)</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Report written to %1</source>
        <translation>Bericht nach %1 geschrieben</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A report on the share describes a saved revision: save the labels to the share first</source>
        <translation>Ein Bericht in der Freigabe beschreibt eine gespeicherte Revision: Speichern Sie die Labels zuerst in der Freigabe</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cannot make a temporary folder for the report: %1</source>
        <translation>Für den Bericht kann kein temporärer Ordner angelegt werden: %1</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Publishing the report to the share</source>
        <translation>Der Bericht wird in der Freigabe veröffentlicht</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Report %1 of revision %2 published on the share: %3</source>
        <translation>Bericht %1 der Revision %2 in der Freigabe veröffentlicht: %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (the audit record was not written: %1)</source>
        <translation> (der Audit-Eintrag wurde nicht geschrieben: %1)</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Not enough memory to mesh the label surfaces for export</source>
        <translation>Nicht genug Speicher, um die Label-Oberflächen für den Export zu vernetzen</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No label surfaces to export: the map holds no labels</source>
        <translation>Keine Label-Oberflächen zu exportieren: die Karte enthält keine Labels</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>%n surface file(s) written to %1</source>
        <translation>
            <numerusform>%n Oberflächendatei nach %1 geschrieben</numerusform>
            <numerusform>%n Oberflächendateien nach %1 geschrieben</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/reports/study_exports_menu.cpp" line="+42"/>
        <source>Label &amp;Statistics (CSV, JSON)...</source>
        <translation>Label-&amp;Statistik (CSV, JSON)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+5"/>
        <location line="+16"/>
        <source>Export Label Statistics</source>
        <translation>Label-Statistik exportieren</translation>
    </message>
    <message>
        <location line="-20"/>
        <location line="+5"/>
        <location line="+16"/>
        <source>CSV (*.csv);;JSON (*.json)</source>
        <translation>CSV (*.csv);;JSON (*.json)</translation>
    </message>
    <message>
        <location line="-18"/>
        <source>Label Statistics, &amp;De-identified...</source>
        <translation>Label-Statistik, &amp;anonymisiert...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label Statistics of a Slice &amp;Range...</source>
        <translation>Label-Statistik eines Schicht&amp;bereichs...</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&amp;PDF Report...</source>
        <translation>&amp;PDF-Bericht...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export PDF Report</source>
        <translation>PDF-Bericht exportieren</translation>
    </message>
    <message>
        <location line="-4"/>
        <location line="+4"/>
        <source>PDF (*.pdf)</source>
        <translation>PDF (*.pdf)</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>PDF Report, De-identified...</source>
        <translation>PDF-Bericht, anonymisiert...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM S&amp;EG...</source>
        <translation>DICOM-S&amp;EG...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export DICOM SEG</source>
        <translation>DICOM-SEG exportieren</translation>
    </message>
    <message>
        <location line="-4"/>
        <location line="+4"/>
        <location line="+5"/>
        <location line="+6"/>
        <location line="+8"/>
        <source>DICOM (*.dcm)</source>
        <translation>DICOM (*.dcm)</translation>
    </message>
    <message>
        <location line="-20"/>
        <source>DICOM SEG, De-identified...</source>
        <translation>DICOM-SEG, anonymisiert...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;RT Structure Set...</source>
        <translation>&amp;RT Structure Set...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Export RT Structure Set</source>
        <translation>RT Structure Set exportieren</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>RT Structure Set, De-identified...</source>
        <translation>RT Structure Set, anonymisiert...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export DICOM SEG and Measurement Report (the report is written beside it as NAME_sr.dcm)</source>
        <translation>DICOM-SEG und Messbericht exportieren (der Bericht wird daneben als NAME_sr.dcm geschrieben)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Replace Measurement Report</source>
        <translation>Messbericht ersetzen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The measurement report %1 already exists. Replace it?</source>
        <translation>Der Messbericht %1 existiert bereits. Ersetzen?</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>DICOM SEG and &amp;Measurement Report (SR)...</source>
        <translation>DICOM-SEG und &amp;Messbericht (SR)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG and Measurement Report, De-identified...</source>
        <translation>DICOM-SEG und Messbericht, anonymisiert...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Write DICOM SEG as &amp;Label Map (keeps label ids)</source>
        <translation>DICOM-SEG als &amp;Labelmap schreiben (behält die Label-IDs)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Publish Report to Share</source>
        <translation>Bericht in der Freigabe veröffentlichen</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Message (optional):</source>
        <translation>Nachricht (optional):</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Publish Report to S&amp;hare...</source>
        <translation>Bericht in der &amp;Freigabe veröffentlichen...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Publish Report to Share, De-identified...</source>
        <translation>Bericht in der Freigabe veröffentlichen, anonymisiert...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Label Su&amp;rfaces (STL)...</source>
        <translation>Label-&amp;Oberflächen (STL)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Export Surfaces to Folder</source>
        <translation>Oberflächen in Ordner exportieren</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Label Surfaces (&amp;OBJ)...</source>
        <translation>Label-Oberflächen (O&amp;BJ)...</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyLoader</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="-335"/>
        <source>Cancelled</source>
        <translation>Abgebrochen</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+27"/>
        <location line="+23"/>
        <location line="+64"/>
        <location line="+121"/>
        <source>Loading %1</source>
        <translation>%1 wird geladen</translation>
    </message>
    <message>
        <location line="-106"/>
        <source>Opening the structure set %1 from the share</source>
        <translation>Öffne das Structure Set %1 von der Freigabe</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Indexing %1</source>
        <translation>%1 wird indiziert</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Loading %1 / %2 r%3</source>
        <translation>%1 / %2 r%3 wird geladen</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>Opening %1 from the share</source>
        <translation>%1 wird aus der Freigabe geöffnet</translation>
    </message>
    <message>
        <location line="+78"/>
        <source>  - incomplete: %1 unreadable file(s)</source>
        <translation>  - unvollständig: %1 unlesbare Datei(en)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>  - warning: %1</source>
        <translation>  - Warnung: %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+25"/>
        <location line="+16"/>
        <location line="+7"/>
        <source>Open DICOM Series</source>
        <translation>DICOM-Serie öffnen</translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Series:</source>
        <translation>Serie:</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Series %1 is incomplete and was not opened. These files of it or beside it cannot be read:
%2</source>
        <translation>Serie %1 ist unvollständig und wurde nicht geöffnet. Diese Dateien der Serie oder daneben sind nicht lesbar:
%2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Series %1 is incomplete. These files of it or beside it cannot be read:
%2

Load the readable files anyway? The slices of the unreadable ones will be missing.</source>
        <translation>Serie %1 ist unvollständig. Diese Dateien der Serie oder daneben sind nicht lesbar:
%2

Die lesbaren Dateien trotzdem laden? Die Schichten der nicht lesbaren fehlen dann.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>This series has problems:
%1</source>
        <translation>Diese Serie weist Probleme auf:
%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>

Load it anyway?</source>
        <translation>

Trotzdem laden?</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Loading series %1</source>
        <translation>Serie %1 wird geladen</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Opened %1</source>
        <translation>%1 geöffnet</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+183"/>
        <source>The labels&apos; table could not be read, their ids are unnamed: %1</source>
        <translation>Die Labeltabelle konnte nicht gelesen werden, die IDs bleiben unbenannt: %1</translation>
    </message>
    <message>
        <location line="-180"/>
        <source>Opened %1; its labels are named by the table last used (%2)</source>
        <translation>%1 geöffnet; seine Labels sind nach der zuletzt verwendeten Tabelle benannt (%2)</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>Opened %1 from the share</source>
        <translation>%1 aus der Freigabe geöffnet</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 x %2 x %3 voxels, spacing %4 x %5 x %6 mm, origin (%7, %8, %9) mm LPS, axes %10</source>
        <translation>%1 x %2 x %3 Voxel, Abstand %4 x %5 x %6 mm, Ursprung (%7, %8, %9) mm LPS, Achsen %10</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 is on another grid than the image.
Label map: %2
Image: %3</source>
        <translation>%1 liegt auf einem anderen Gitter als das Bild.
Labelmap: %2
Bild: %3</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It does not cover the image&apos;s space and was not opened.</source>
        <translation>Sie deckt den Raum des Bildes nicht ab und wurde nicht geöffnet.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It was not opened.</source>
        <translation>Sie wurde nicht geöffnet.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Label Map on Another Grid</source>
        <translation>Labelmap auf einem anderen Gitter</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>It covers the image&apos;s space. Resample it onto the image&apos;s grid (nearest neighbour)? Undo takes the resampled labels back.</source>
        <translation>Sie deckt den Raum des Bildes ab. Auf das Gitter des Bildes umrechnen (nächster Nachbar)? Rückgängig nimmt die umgerechneten Labels zurück.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Resampling %1</source>
        <translation>%1 wird umgerechnet</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: %2</source>
        <translation>%1: %2</translation>
    </message>
    <message numerus="yes">
        <location line="+59"/>
        <source>%1 (%n voxel(s))</source>
        <translation>
            <numerusform>%1 (%n Voxel)</numerusform>
            <numerusform>%1 (%n Voxel)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>Labels from %1; %n value(s) the table does not name: %2</source>
        <translation>
            <numerusform>Labels aus %1; %n Wert, den die Tabelle nicht benennt: %2</numerusform>
            <numerusform>Labels aus %1; %n Werte, die die Tabelle nicht benennt: %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Labels from %1, named by the table last used (%2)</source>
        <translation>Labels aus %1, benannt nach der zuletzt verwendeten Tabelle (%2)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Labels from %1</source>
        <translation>Labels aus %1 geladen</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1: %2 voxels belonged to more than one segment; the higher segment number was kept</source>
        <translation>%1: %2 Voxel gehörten zu mehr als einem Segment; die höhere Segmentnummer wurde übernommen</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SurfaceBuilder</name>
    <message>
        <location filename="../app/gui/views/surface_builder.cpp" line="+102"/>
        <location line="+56"/>
        <source>building surfaces...</source>
        <translation>Oberflächen werden erstellt...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>not enough memory to rebuild the surfaces</source>
        <translation>nicht genug Speicher, um die Oberflächen neu zu erstellen</translation>
    </message>
    <message numerus="yes">
        <location line="-66"/>
        <source>%n surface(s)</source>
        <translation>
            <numerusform>%n Oberfläche</numerusform>
            <numerusform>%n Oberflächen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>%n surface(s), reduced detail</source>
        <translation>
            <numerusform>%n Oberfläche, reduziertes Detail</numerusform>
            <numerusform>%n Oberflächen, reduziertes Detail</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser, as the preferences ask (File &gt; Preferences &gt; 3D surface detail). Exported surface files are meshed at full detail.</source>
        <translation>Große Labels werden gröber vernetzt, wie in den Einstellungen gewählt (Datei &gt; Einstellungen &gt; 3D-Oberflächendetail). Exportierte Oberflächendateien werden in voller Detailstufe vernetzt.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser: the OpenGL renderer (%1) draws on the CPU, where full detail costs memory and slows every frame. File &gt; Preferences &gt; 3D surface detail can ask for full detail; exported surface files are always full detail.</source>
        <translation>Große Labels werden gröber vernetzt: der OpenGL-Renderer (%1) zeichnet auf der CPU, wo volles Detail Speicher kostet und jedes Bild verlangsamt. Unter Datei &gt; Einstellungen &gt; 3D-Oberflächendetail lässt sich volles Detail wählen; exportierte Oberflächendateien haben immer volles Detail.</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SurfacePanel</name>
    <message>
        <location filename="../app/gui/views/view_panels.cpp" line="+169"/>
        <location line="+32"/>
        <source>3D</source>
        <translation>3D</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>3D  %1</source>
        <translation>3D  %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::TrainingPanel</name>
    <message>
        <location filename="../app/gui/training/training_panel.cpp" line="+257"/>
        <source>Training: %1</source>
        <translation>Training: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Training %1 after %2 iterations; best validation Dice %3</source>
        <translation>Training %1 nach %2 Iterationen; bester Validierungs-Dice %3</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>ended</source>
        <translation>beendet</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>done</source>
        <translation>abgeschlossen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped (checkpoint saved)</source>
        <translation>angehalten (Checkpoint gespeichert)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped early</source>
        <translation>vorzeitig beendet</translation>
    </message>
    <message>
        <location line="-39"/>
        <location line="+31"/>
        <location line="+318"/>
        <source>none</source>
        <translation>keiner</translation>
    </message>
    <message>
        <location line="-346"/>
        <source>No share is open, so the model was not published: its checkpoints are in %1 (open or create a share and train again to publish it)</source>
        <translation>Keine Freigabe geöffnet, daher wurde das Modell nicht veröffentlicht: seine Checkpoints liegen in %1 (eine Freigabe öffnen oder anlegen und erneut trainieren, um es zu veröffentlichen)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Training failed: %1</source>
        <translation>Training fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Following the run %1 started earlier</source>
        <translation>Der früher gestartete Lauf %1 wird verfolgt</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Last run %1: %2 after %3 iterations; best validation Dice %4</source>
        <translation>Letzter Lauf %1: %2 nach %3 Iterationen; bester Validierungs-Dice %4</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Data:</source>
        <translation>Daten:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A case list file (below)</source>
        <translation>Eine Fallliste (unten)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cases.json: image and label files (or choose a dataset of the share above)</source>
        <translation>cases.json: Bild- und Labeldateien (oder oben einen Datensatz der Freigabe wählen)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model:</source>
        <translation>Modell:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New atlas network (SegResNetDS)</source>
        <translation>Neues Atlas-Netz (SegResNetDS)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fine-tune VISTA-3D</source>
        <translation>VISTA-3D feinabstimmen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VISTA-3D checkpoint to fine-tune: a file (model.pt) or share:ROOT#MODEL</source>
        <translation>VISTA-3D-Checkpoint zum Feinabstimmen: eine Datei (model.pt) oder share:ROOT#MODEL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Name:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the model&apos;s name on the share (checkpoints/&lt;name&gt;/)</source>
        <translation>Name des Modells auf der Freigabe (checkpoints/&lt;name&gt;/)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>label table (names; optional)</source>
        <translation>Labeltabelle (Namen; optional)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Iterations:</source>
        <translation>Iterationen:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate every:</source>
        <translation>Validieren alle:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device:</source>
        <translation>Gerät:</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Advanced:</source>
        <translation>Erweitert:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>more delineate-train options, e.g. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</source>
        <translation>weitere delineate-train-Optionen, z. B. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</translation>
    </message>
    <message>
        <location line="+308"/>
        <source>Stopping...</source>
        <translation>Wird beendet...</translation>
    </message>
    <message>
        <location line="-306"/>
        <source>Start</source>
        <translation>Starten</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate the weights reached, save them as a checkpoint and end the run</source>
        <translation>Die erreichten Gewichte validieren, als Checkpoint speichern und den Lauf beenden</translation>
    </message>
    <message>
        <location line="+93"/>
        <source>No share is open: the model stays in its run folder, unpublished</source>
        <translation>Keine Freigabe geöffnet: das Modell bleibt unveröffentlicht in seinem Lauf-Ordner</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Stopping: validating and saving a checkpoint...</source>
        <translation>Wird beendet: Validieren und Speichern eines Checkpoints...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>On the CPU the patch defaults to 64x64x64 voxels: smaller patches make training on the CPU feasible (about 0.6 iterations/s on a mouse atlas, against 0.07-0.18 at 96x96x80).</source>
        <translation>Auf der CPU ist der Patch standardmäßig 64x64x64 Voxel groß: kleinere Patches machen Training auf der CPU machbar (etwa 0,6 Iterationen/s bei einem Mausatlas, gegenüber 0,07-0,18 bei 96x96x80).</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>On a GPU the patch defaults to the cases&apos; size, up to 128 voxels a side, and the network to 32 filters.</source>
        <translation>Auf einer GPU ist der Patch standardmäßig so groß wie die Fälle, bis zu 128 Voxel je Seite, und das Netz hat 32 Filter.</translation>
    </message>
    <message>
        <location line="+194"/>
        <source>Stop</source>
        <translation>Anhalten</translation>
    </message>
    <message>
        <location line="-304"/>
        <source>Resume</source>
        <translation>Fortsetzen</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Time budget:</source>
        <translation>Zeitbudget:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. 55m or 1h30m: the iterations that fit it (empty: the iterations above)</source>
        <translation>z. B. 55m oder 1h30m: so viele Iterationen, wie hineinpassen (leer: die Iterationen oben)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run on:</source>
        <translation>Ausführen auf:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This computer</source>
        <translation>Diesem Computer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm cluster</source>
        <translation>Slurm-Cluster</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cluster folder:</source>
        <translation>Cluster-Ordner:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a folder every cluster node mounts (the run&apos;s checkpoints and log go there)</source>
        <translation>ein Ordner, den jeder Cluster-Knoten eingebunden hat (Checkpoints und Protokoll des Laufs landen dort)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm:</source>
        <translation>Slurm:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node: one rank each)</source>
        <translation>z. B. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node: je ein Rang)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Continue the run from its newest checkpoint</source>
        <translation>Den Lauf ab seinem neuesten Checkpoint fortsetzen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Models...</source>
        <translation>Modelle...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models: metrics, datasets, comparison; choose the AI engine</source>
        <translation>Die trainierten Modelle der Freigabe: Metriken, Datensätze, Vergleich; die KI-Engine wählen</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next Case</source>
        <translation>Nächster Fall</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank the share&apos;s studies without approved labels by this model&apos;s uncertainty and open the most uncertain one</source>
        <translation>Die Studien der Freigabe ohne freigegebene Labels nach der Unsicherheit dieses Modells ordnen und die unsicherste öffnen</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study</source>
        <translation>Studie</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Uncertainty</source>
        <translation>Unsicherheit</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Labels</source>
        <translation>Labels</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation>Verlust</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation Dice</source>
        <translation>Validierungs-Dice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Structure</source>
        <translation>Struktur</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Dice</source>
        <translation>Dice</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Choose a dataset of the share or a case list file</source>
        <translation>Einen Datensatz der Freigabe oder eine Fallliste wählen</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>No share is open to take the dataset from</source>
        <translation>Keine Freigabe geöffnet, aus der der Datensatz käme</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Fine-tuning VISTA-3D starts from a checkpoint: give its file</source>
        <translation>Die Feinabstimmung von VISTA-3D beginnt mit einem Checkpoint: Datei angeben</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Choose a folder every cluster node mounts (an absolute path) for a Slurm run</source>
        <translation>Wählen Sie für einen Slurm-Lauf einen Ordner, den jeder Cluster-Knoten eingebunden hat (absoluter Pfad)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Training could not start: %1</source>
        <translation>Training konnte nicht starten: %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Training %1: resuming from its newest checkpoint, reading the cases...</source>
        <translation>Training %1: Fortsetzen ab dem neuesten Checkpoint, Fälle werden gelesen...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training %1: reading the cases...</source>
        <translation>Training %1: Fälle werden gelesen...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Training %1: submitted to Slurm as job %2; it starts when the cluster runs it</source>
        <translation>Training %1: an Slurm als Job %2 übergeben; es beginnt, sobald der Cluster es ausführt</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>it %1/%2  loss %3  %4 it/s  ETA %5  data wait %6%  %7</source>
        <translation>It. %1/%2  Verlust %3  %4 It./s  Rest %5  Datenwartezeit %6%  %7</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>  validation Dice %1</source>
        <translation>  Validierungs-Dice %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  memory %1 GB</source>
        <translation>  Speicher %1 GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  GPU memory in use %1 GB</source>
        <translation>  GPU-Speicher belegt %1 GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  last %1</source>
        <translation>  zuletzt %1</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>No share is open to rank its studies</source>
        <translation>Keine Freigabe geöffnet, deren Studien zu ordnen wären</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Name the model that ranks the studies (Name:)</source>
        <translation>Das Modell benennen, das die Studien ordnet (Name:)</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Ranking the studies without approved labels by %1...</source>
        <translation>Studien ohne freigegebene Labels werden nach %1 geordnet...</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Ranking 1 study on %1...</source>
        <translation>1 Studie wird auf %1 eingeordnet...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranking %1 studies on %2...</source>
        <translation>%1 Studien werden auf %2 geordnet...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Ranked %1 of %2: %3 (uncertainty %4)</source>
        <translation>%1 von %2 eingeordnet: %3 (Unsicherheit %4)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not ranked: %1: %2</source>
        <translation>Nicht eingeordnet: %1: %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>the ranking was stopped</source>
        <translation>die Einordnung wurde angehalten</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>delineate-train ended without a ranking</source>
        <translation>delineate-train endete ohne Rangfolge</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Ranking failed: %1</source>
        <translation>Einordnung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Every study of the share with an image has approved labels: nothing to rank</source>
        <translation>Jede Studie der Freigabe mit Bild hat freigegebene Labels: nichts zu ordnen</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Next case: %1 (uncertainty %2), the only study to label</source>
        <translation>Nächster Fall: %1 (Unsicherheit %2), die einzige zu labelnde Studie</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next case: %1 (uncertainty %2), the most uncertain of %3 studies</source>
        <translation>Nächster Fall: %1 (Unsicherheit %2), die unsicherste von %3 Studien</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::TrainingRun</name>
    <message>
        <location filename="../app/gui/training/training_run.cpp" line="+137"/>
        <source>cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <location line="+28"/>
        <location line="+11"/>
        <source>cannot submit to Slurm: %1</source>
        <translation>Übergabe an Slurm nicht möglich: %1</translation>
    </message>
    <message>
        <location line="+70"/>
        <source>ended without a result (see %1)</source>
        <translation>ohne Ergebnis beendet (siehe %1)</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>scancel: %1</source>
        <translation>scancel: %1</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>delineate-train ended without a result (see %1)</source>
        <translation>delineate-train endete ohne Ergebnis (siehe %1)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::VolumeText</name>
    <message>
        <location filename="../app/gui/base/volume_text.cpp" line="+20"/>
        <source>%1 mL</source>
        <translation>%1 mL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 mm³</source>
        <translation>%1 mm³</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::WelcomePanel</name>
    <message>
        <location filename="../app/gui/shell/welcome_panel.cpp" line="+74"/>
        <source>Delineate</source>
        <translation>Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No study is open. Open one:</source>
        <translation>Keine Studie ist geöffnet. Öffnen Sie eine:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>You can also drop an image file (NIfTI, NRRD, MetaImage), a DICOM file or a DICOM folder onto this window, or open one from your file manager.</source>
        <translation>Sie können auch eine Bilddatei (NIfTI, NRRD, MetaImage), eine DICOM-Datei oder einen DICOM-Ordner auf dieses Fenster ziehen oder sie aus Ihrem Dateimanager öffnen.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&lt;b&gt;Models.&lt;/b&gt; Automatic labels work without any download: the classic engine segments body, lungs, airway and bone on the CPU, and refines any label by clicks. VISTA-3D (127 classes, best on a GPU) needs its checkpoint, which is not installed with Delineate (for its licence and its size): AI &amp;gt; Get Models says where to get it, downloads or registers it and makes it the engine&apos;s (VISTA-3D also needs the delineate-torch package). You can also train a model on your own labels in the Training dock.</source>
        <translation>&lt;b&gt;Modelle.&lt;/b&gt; Automatische Labels funktionieren ohne Download: die klassische Engine segmentiert Körper, Lungen, Atemwege und Knochen auf der CPU und verfeinert jedes Label per Klick. VISTA-3D (127 Klassen, am besten auf einer GPU) braucht seinen Checkpoint, der wegen Lizenz und Größe nicht mit Delineate installiert wird: KI &amp;gt; Modelle holen sagt, woher er kommt, lädt ihn herunter oder registriert ihn und macht ihn zu dem der Engine (VISTA-3D braucht außerdem das Paket delineate-torch). Sie können auch im Training-Dock ein Modell mit Ihren eigenen Labels trainieren.</translation>
    </message>
</context>
</TS>
