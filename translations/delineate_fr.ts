<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr_FR">
<context>
    <name>AuthorPrompt</name>
    <message>
        <location filename="../app/gui/base/author_name.cpp" line="+22"/>
        <source>No author name: set yours in File &gt; Preferences (it is stored with every revision)</source>
        <translation>Aucun nom d&apos;auteur : indiquez le vôtre dans Fichier &gt; Préférences (il est enregistré avec chaque révision)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Author Name</source>
        <translation>Nom d&apos;auteur</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Your name, stored with every revision you save, every review step and every model you train (File &gt; Preferences changes it):</source>
        <translation>Votre nom, enregistré avec chaque révision que vous sauvegardez, chaque étape de relecture et chaque modèle que vous entraînez (Fichier &gt; Préférences le modifie) :</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No author name given: nothing was saved or recorded</source>
        <translation>Aucun nom d&apos;auteur donné : rien n&apos;a été enregistré</translation>
    </message>
</context>
<context>
    <name>EditStep</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+34"/>
        <source>Paint</source>
        <translation>Peindre</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Erase</source>
        <translation>Effacer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill</source>
        <translation>Remplissage par diffusion</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>Conserver le plus grand îlot</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove small islands</source>
        <translation>Supprimer les petits îlots</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>Combler les trous</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>Lisser</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>Interpoler les coupes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices over other labels</source>
        <translation>Interpoler les coupes par-dessus les autres étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open label map</source>
        <translation>Ouvrir une carte d&apos;étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment everything</source>
        <translation>Tout segmenter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>Segmenter les classes sélectionnées</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept AI object</source>
        <translation>Accepter l&apos;objet IA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recovered edits</source>
        <translation>Modifications récupérées</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add label</source>
        <translation>Ajouter une étiquette</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename label</source>
        <translation>Renommer l’étiquette</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lock label</source>
        <translation>Verrouiller l’étiquette</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour label</source>
        <translation>Changer la couleur de l’étiquette</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import label table</source>
        <translation>Importer la table d’étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label names</source>
        <translation>Noms des étiquettes</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="+125"/>
        <source>out of memory</source>
        <translation>mémoire insuffisante</translation>
    </message>
    <message>
        <location line="+72"/>
        <location line="+25"/>
        <location line="+10"/>
        <source>%1: %2</source>
        <translation>%1&#xa0;: %2</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>%1 voxels belonged to more than one ROI; each went to the smallest ROI holding it</source>
        <translation>%1 voxels appartenaient à plus d&apos;une ROI ; chacun est allé à la plus petite ROI qui le contient</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Series %1 of %2 holds no RT Structure Set</source>
        <translation>La série %1 de %2 ne contient aucun RT Structure Set</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Series %1 of %2 holds %3 RT Structure Sets; open one with File &gt; Open RT Structure Set from %4</source>
        <translation>La série %1 de %2 contient %3 RT Structure Sets ; ouvrez-en un avec Fichier &gt; Ouvrir un RT Structure Set depuis %4</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>%1: no image series found</source>
        <translation>%1&#xa0;: aucune série d&apos;images trouvée</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>%1 / %2 on %3 holds no revision</source>
        <translation>%1 / %2 sur %3 ne contient aucune révision</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+75"/>
        <source>%1 revision %2</source>
        <translation>%1 révision %2</translation>
    </message>
    <message>
        <location line="-28"/>
        <source>Series %1 of %2 is not one regular image (split, irregular or incomplete); open its verified copy with File &gt; Open DICOM Folder: %3</source>
        <translation>La série %1 de %2 n’est pas une image régulière unique (scindée, irrégulière ou incomplète) ; ouvrez sa copie vérifiée avec Fichier &gt; Ouvrir un dossier DICOM : %3</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="+202"/>
        <source>Move the crosshair</source>
        <translation>Déplacer le réticule</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click or drag (Navigate)</source>
        <translation>Clic gauche ou glisser (Naviguer)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint / erase / fill</source>
        <translation>Peindre / effacer / remplir</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag (Brush, Eraser, Fill)</source>
        <translation>Glisser avec le bouton gauche (Pinceau, Gomme, Remplir)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush size</source>
        <translation>Taille du pinceau</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>[ and ], or Shift + wheel</source>
        <translation>[ et ], ou Shift + molette</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Positive AI point</source>
        <translation>Point IA positif</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click (click mode)</source>
        <translation>Clic gauche (mode clic)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Negative AI point</source>
        <translation>Point IA négatif</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Shift + left click or right click (click mode)</source>
        <translation>Shift + clic gauche ou clic droit (mode clic)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI box, scribble or lasso</source>
        <translation>Boîte, trait ou lasso IA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Left drag; negative: Shift + left drag or right drag (its tool chosen)</source>
        <translation>Glisser avec le bouton gauche ; négatif : Maj + glisser à gauche ou glisser à droite (son outil choisi)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scroll slices</source>
        <translation>Faire défiler les coupes</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Wheel, Up/Down, PageUp/PageDown</source>
        <translation>Molette, Up/Down, PageUp/PageDown</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom</source>
        <translation>Zoom</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl + wheel, + and -</source>
        <translation>Ctrl + molette, + et -</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pan</source>
        <translation>Déplacer la vue</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Middle drag or Shift + left drag</source>
        <translation>Glisser avec le bouton du milieu ou Shift + glisser avec le bouton gauche</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Window / level</source>
        <translation>Fenêtre / niveau</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Right drag (not in click mode)</source>
        <translation>Glisser avec le bouton droit (hors mode clic)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One view alone and back</source>
        <translation>Une vue seule, puis retour</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click</source>
        <translation>Double-clic</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reset the view</source>
        <translation>Réinitialiser la vue</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rotate the 3D view</source>
        <translation>Faire pivoter la vue 3D</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag in 3D</source>
        <translation>Glisser avec le bouton gauche dans la vue 3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename a label</source>
        <translation>Renommer une étiquette</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its name</source>
        <translation>Double-clic sur son nom</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour a label</source>
        <translation>Changer la couleur d&apos;une étiquette</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its id</source>
        <translation>Double-clic sur son identifiant</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Keyboard Shortcuts and Mouse</source>
        <translation>Raccourcis clavier et souris</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Action</source>
        <translation>Action</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Keys or mouse</source>
        <translation>Touches ou souris</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::AiPanel</name>
    <message>
        <location filename="../app/gui/ai/ai_panel.cpp" line="+216"/>
        <source>Model:</source>
        <translation>Modèle :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine&apos;s model: the one set in the preferences, or a trained model from the share&apos;s checkpoints (its newest revision)</source>
        <translation>Le modèle du moteur : celui des préférences, ou un modèle entraîné parmi les points de contrôle du partage (sa révision la plus récente)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Refresh</source>
        <translation>Actualiser</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>List the share&apos;s models again</source>
        <translation>Relister les modèles du partage</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+239"/>
        <source>From the preferences</source>
        <translation>Selon les préférences</translation>
    </message>
    <message>
        <location line="-238"/>
        <source>Segment everything</source>
        <translation>Tout segmenter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Classes:</source>
        <translation>Classes&#xa0;:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>Segmenter les classes sélectionnées</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Click mode (A)</source>
        <translation>Mode clic (A)</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Accept</source>
        <translation>Accepter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Write the object into the label chosen under &quot;Accept into&quot; (Return)</source>
        <translation>Écrire l’objet dans l’étiquette choisie sous « Accepter dans » (Entrée)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept into:</source>
        <translation>Accepter dans :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The label the accepted object is written into: a new label unless you choose one here or in the labels list</source>
        <translation>L’étiquette dans laquelle l’objet accepté est écrit : une nouvelle étiquette, sauf si vous en choisissez une ici ou dans la liste des étiquettes</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Discard</source>
        <translation>Rejeter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drop the object (Escape)</source>
        <translation>Rejeter l&apos;objet (Escape)</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+391"/>
        <source>AI click mode</source>
        <translation>Mode clic IA</translation>
    </message>
    <message>
        <location line="-391"/>
        <source>Accept AI object</source>
        <translation>Accepter l&apos;objet IA</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Discard AI object</source>
        <translation>Rejeter l&apos;objet IA</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Engine: starting...</source>
        <translation>Moteur&#xa0;: démarrage...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Engine: none</source>
        <translation>Moteur&#xa0;: aucun</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Engine: %1 on %2</source>
        <translation>Moteur&#xa0;: %1 sur %2</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>classic engine: no VISTA-3D checkpoint is configured</source>
        <translation>moteur classique : aucun checkpoint VISTA-3D n’est configuré</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>classic engine: no CUDA device for VISTA-3D (choose the CPU in the preferences to run it there, at minutes per window)</source>
        <translation>moteur classique : aucun périphérique CUDA pour VISTA-3D (choisissez le CPU dans les préférences pour l’y exécuter, à raison de plusieurs minutes par fenêtre)</translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>atlas network %1 (%n classes) on %2</source>
        <translation>
            <numerusform>réseau d’atlas %1 (%n classe) sur %2</numerusform>
            <numerusform>réseau d’atlas %1 (%n classes) sur %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>VISTA-3D on %1</source>
        <translation>VISTA-3D sur %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, asked for (the full model takes minutes per 128^3 window on a CPU)</source>
        <translation>, comme demandé (le modèle complet prend plusieurs minutes par fenêtre 128^3 sur un CPU)</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>, fine-tuned: %n classes by the labels it was trained with</source>
        <translation>
            <numerusform>, affiné : %n classe selon les labels de son entraînement</numerusform>
            <numerusform>, affiné : %n classes selon les labels de son entraînement</numerusform>
        </translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Fit unknown: this model&apos;s sidecar records nothing of its training images (a checkpoint from before they were recorded); check its results on this study with care.</source>
        <translation>Adéquation inconnue : le fichier annexe de ce modèle ne décrit pas ses images d’entraînement (un checkpoint antérieur à leur enregistrement) ; vérifiez ses résultats sur cette étude avec soin.</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 × %2 × %3 mm</source>
        <translation>%1 × %2 × %3 mm</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>image</source>
        <translation>image</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this %1 is %2 mm, %3 × %4 × %5 voxels (%6)</source>
        <translation>cette %1 est à %2 mm, %3 × %4 × %5 voxels (%6)</translation>
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
            <numerusform>%n image</numerusform>
            <numerusform>%n images</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n %1 image(s)</source>
        <translation>
            <numerusform>%n image %1</numerusform>
            <numerusform>%n images %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model trained on %1 at %2 mm, field of view up to %3; %4</source>
        <translation>Modèle entraîné sur %1 à %2 mm, champ de vue jusqu’à %3 ; %4</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>field of view %1× larger</source>
        <translation>champ de vue %1× plus grand</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>field of view %1× smaller</source>
        <translation>champ de vue %1× plus petit</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× coarser</source>
        <translation>voxels %1× plus grossiers</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× finer</source>
        <translation>voxels %1× plus fins</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>another modality</source>
        <translation>une autre modalité</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no CT intensities (Hounsfield units)</source>
        <translation>pas d’intensités CT (unités Hounsfield)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>resampled to the model&apos;s grid it would be %1 billion voxels, too large to segment</source>
        <translation>rééchantillonnée sur la grille du modèle, elle compterait %1 milliards de voxels, trop pour être segmentée</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The model does not fit this study: %1: %2</source>
        <translation>Le modèle ne convient pas à cette étude : %1 : %2</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Model Does Not Fit the Study</source>
        <translation>Modèle inadapté à l’étude</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its result is likely to be wrong. Run it anyway?</source>
        <translation>Son résultat sera probablement faux. L’exécuter quand même ?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run Anyway</source>
        <translation>Exécuter quand même</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>The engine is busy: choose the model when it is done</source>
        <translation>Le moteur est occupé : choisissez le modèle quand il aura fini</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Share models: %1</source>
        <translation>Modèles du partage : %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 (being trained by %2)</source>
        <translation>%1 (en cours d&apos;entraînement par %2)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 r%2</source>
        <translation>%1 r%2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1 class</source>
        <translation>1 classe</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 classes</source>
        <translation>%1 classes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dice %1</source>
        <translation>Dice %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>being trained by %1</source>
        <translation>en cours d&apos;entraînement par %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1, saved by %2 at %3</source>
        <translation>%1, enregistré par %2 le %3</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>AI engine: %1</source>
        <translation>Moteur IA&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+238"/>
        <location line="+53"/>
        <source>AI prompt: %1</source>
        <translation>Invite IA : %1</translation>
    </message>
    <message numerus="yes">
        <location line="+83"/>
        <source>%n prompt(s), object %1 voxels; engine %2 ms, display %3 ms</source>
        <translation>
            <numerusform>%n invite, objet %1 voxels ; moteur %2 ms, affichage %3 ms</numerusform>
            <numerusform>%n invites, objet %1 voxels ; moteur %2 ms, affichage %3 ms</numerusform>
        </translation>
    </message>
    <message>
        <location line="-604"/>
        <source>classic engine (the configured one failed)</source>
        <translation>moteur classique (le moteur configuré a échoué)</translation>
    </message>
    <message>
        <location line="+283"/>
        <source>Tick the classes to segment first</source>
        <translation>Cochez d&apos;abord les classes à segmenter</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Cancelled</source>
        <translation>Annulé</translation>
    </message>
    <message>
        <location line="-219"/>
        <location line="+221"/>
        <source>%1: %2</source>
        <translation>%1&#xa0;: %2</translation>
    </message>
    <message>
        <location line="-384"/>
        <source>Prompt:</source>
        <translation>Invite :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Point</source>
        <translation>Point</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Box</source>
        <translation>Boîte</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Scribble</source>
        <translation>Trait</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lasso</source>
        <translation>Lasso</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Click on the object (positive) or beside it (negative) (P)</source>
        <translation>Cliquer sur l&apos;objet (positif) ou à côté (négatif) (P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drag a rectangle around the object in a slice: it bounds the object in that slice&apos;s two directions (X)</source>
        <translation>Tracer un rectangle autour de l&apos;objet dans une coupe : il borne l&apos;objet dans les deux directions de cette coupe (X)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint a stroke over the object (positive) or over what is not (negative) (S)</source>
        <translation>Peindre un trait sur l&apos;objet (positif) ou sur ce qui ne l&apos;est pas (négatif) (S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Draw a closed contour around part of the object in a slice; its inside is the object, or not (L)</source>
        <translation>Tracer un contour fermé autour d&apos;une partie de l&apos;objet dans une coupe ; son intérieur est l&apos;objet, ou ne l&apos;est pas (L)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Left button: positive. Shift + left or right button: negative. A click gives a point; a drag gives a box, scribble or lasso.</source>
        <translation>Bouton gauche : positif. Maj + bouton gauche ou bouton droit : négatif. Un clic donne un point ; un glisser donne une boîte, un trait ou un lasso.</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Undo prompt</source>
        <translation>Annuler l&apos;invite</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove the last prompt (Backspace)</source>
        <translation>Retirer la dernière invite (Retour arrière)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Remove last AI prompt</source>
        <translation>Retirer la dernière invite IA</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: point</source>
        <translation>Invite IA : point</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: box</source>
        <translation>Invite IA : boîte</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI prompt: scribble</source>
        <translation>Invite IA : trait</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: lasso</source>
        <translation>Invite IA : lasso</translation>
    </message>
    <message>
        <location line="+364"/>
        <source>%1: the engine found nothing (every voxel is background)</source>
        <translation>%1 : le moteur n’a rien trouvé (chaque voxel est du fond)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: %2 s</source>
        <translation>%1&#xa0;: %2 s</translation>
    </message>
    <message>
        <location line="+124"/>
        <source>model-guided: edits label %1</source>
        <translation>guidé par le modèle : modifie l&apos;étiquette %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>classic engine (intensities): choose one of the model&apos;s labels to edit it model-guided</source>
        <translation>moteur classique (intensités) : choisissez une étiquette du modèle pour la modifier guidé par le modèle</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Wait for the study to finish loading</source>
        <translation>Attendez la fin du chargement de l’étude</translation>
    </message>
    <message>
        <location line="+209"/>
        <source>New label</source>
        <translation>Nouvelle étiquette</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1  (unnamed)</source>
        <translation>%1  (sans nom)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Accept: every label id is in use</source>
        <translation>Accepter : tous les identifiants d’étiquette sont utilisés</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label %1</source>
        <translation>Étiquette %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Accept: %1</source>
        <translation>Accepter&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Accept: there is no object to accept yet</source>
        <translation>Accepter : aucun objet à accepter pour l&apos;instant</translation>
    </message>
    <message numerus="yes">
        <location line="+20"/>
        <source>Accepted: %n voxel(s) written to label %1</source>
        <translation>
            <numerusform>Accepté : %n voxel écrit dans l’étiquette %1</numerusform>
            <numerusform>Accepté : %n voxels écrits dans l’étiquette %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::EditTools</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+158"/>
        <source>Navigate</source>
        <translation>Naviguer</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush</source>
        <translation>Pinceau</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Eraser</source>
        <translation>Gomme</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Fill</source>
        <translation>Remplir</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Navigate: the crosshair, no editing (N)</source>
        <translation>Naviguer&#xa0;: déplacer le réticule, sans modification (N)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush: paint the active label (B)</source>
        <translation>Pinceau&#xa0;: peindre l&apos;étiquette active (B)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Eraser: paint background (E)</source>
        <translation>Gomme&#xa0;: peindre le fond (E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill: the connected region under the click (F)</source>
        <translation>Remplissage par diffusion&#xa0;: la région connexe sous le clic (F)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Larger brush</source>
        <translation>Pinceau plus grand</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smaller brush</source>
        <translation>Pinceau plus petit</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush radius</source>
        <translation>Rayon du pinceau</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>[ and ] or Shift + wheel over a view</source>
        <translation>[ et ] ou Shift + molette sur une vue</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D brush (sphere)</source>
        <translation>Pinceau 3D (sphère)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D flood fill</source>
        <translation>Remplissage par diffusion 3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Protect other labels</source>
        <translation>Protéger les autres étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The brush paints only over background; the eraser removes only the active label</source>
        <translation>Le pinceau ne peint que sur le fond&#xa0;; la gomme n&apos;efface que l&apos;étiquette active</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only intensities in range</source>
        <translation>Uniquement les intensités dans la plage</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Active label</source>
        <translation>Étiquette active</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>Conserver le plus grand îlot</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove islands under (voxels)</source>
        <translation>Supprimer les îlots de moins de (voxels)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>Combler les trous</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>Lisser</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>Interpoler les coupes</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>Coronal</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Brush radius %1 mm</source>
        <translation>Rayon du pinceau %1 mm</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Choose or add a label to paint with</source>
        <translation>Choisissez ou ajoutez une étiquette à peindre</translation>
    </message>
    <message>
        <location line="+58"/>
        <source>Choose or add a label to fill with</source>
        <translation>Choisissez ou ajoutez une étiquette de remplissage</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Choose a label first</source>
        <translation>Choisissez d&apos;abord une étiquette</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+58"/>
        <source>%1: %2</source>
        <translation>%1&#xa0;: %2</translation>
    </message>
    <message numerus="yes">
        <location line="-54"/>
        <source>%1: %n voxel(s) changed</source>
        <translation>
            <numerusform>%1&#xa0;: %n voxel modifié</numerusform>
            <numerusform>%1&#xa0;: %n voxels modifiés</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: nothing to change</source>
        <translation>%1&#xa0;: rien à modifier</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>%1: every label id is in use</source>
        <translation>%1 : tous les identifiants d’étiquette sont utilisés</translation>
    </message>
    <message numerus="yes">
        <location line="+58"/>
        <source>Interpolate slices: %n voxel(s) between the slices belong to other labels and were left as they are (interpolation fills only unlabelled voxels)</source>
        <translation>
            <numerusform>Interpoler les coupes : %n voxel entre les coupes appartient à d’autres étiquettes et n’a pas été modifié (l’interpolation ne remplit que les voxels sans étiquette)</numerusform>
            <numerusform>Interpoler les coupes : %n voxels entre les coupes appartiennent à d’autres étiquettes et n’ont pas été modifiés (l’interpolation ne remplit que les voxels sans étiquette)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Interpolate Slices</source>
        <translation>Interpoler les coupes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate over the other labels? Locked labels stay as they are; Undo takes it back in one step.</source>
        <translation>Interpoler par-dessus les autres étiquettes ? Les étiquettes verrouillées restent inchangées ; Annuler le défait en une étape.</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Undone: %1</source>
        <translation>Annulé&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Redone: %1</source>
        <translation>Rétabli&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>&amp;Undo %1</source>
        <translation>&amp;Annuler&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Undo</source>
        <translation>&amp;Annuler</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Redo %1</source>
        <translation>&amp;Rétablir&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Redo</source>
        <translation>&amp;Rétablir</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::LabelPanel</name>
    <message>
        <location filename="../app/gui/editing/label_panel.cpp" line="+51"/>
        <source>Label tables (*.label *.txt *.ctbl *.csv *.tsv *.json);;All files (*)</source>
        <translation>Tables d&apos;étiquettes (*.label *.txt *.ctbl *.csv *.tsv *.json);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Label %1</source>
        <translation>Étiquette %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add Label</source>
        <translation>Ajouter une étiquette</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name:</source>
        <translation>Nom&#xa0;:</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Import Label Table</source>
        <translation>Importer une table d&apos;étiquettes</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export Label Table</source>
        <translation>Exporter la table d&apos;étiquettes</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name</source>
        <translation>Nom</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show</source>
        <translation>Visible</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lock</source>
        <translation>Verrou</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>Volume</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Opacity</source>
        <translation>Opacité</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add</source>
        <translation>Ajouter</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Colour...</source>
        <translation>Couleur...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show all</source>
        <translation>Tout afficher</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hide all</source>
        <translation>Tout masquer</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Import table...</source>
        <translation>Importer la table...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Export table...</source>
        <translation>Exporter la table...</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+107"/>
        <location line="+7"/>
        <source>label %1</source>
        <translation>étiquette %1</translation>
    </message>
    <message>
        <location line="-109"/>
        <source>Unnamed: the labels&apos; table does not name id %1</source>
        <translation>Sans nom : la table d’étiquettes ne nomme pas l’identifiant %1</translation>
    </message>
    <message>
        <location line="+111"/>
        <source>Colour of %1</source>
        <translation>Couleur de %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Every label id is in use</source>
        <translation>Tous les identifiants d&apos;étiquette sont utilisés</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>%1: the file holds no labels</source>
        <translation>%1&#xa0;: le fichier ne contient aucune étiquette</translation>
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
        <translation>Annuler</translation>
    </message>
    <message>
        <location line="-102"/>
        <location line="+99"/>
        <source>Labels</source>
        <translation>Étiquettes</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>Tools</source>
        <translation>Outils</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>AI</source>
        <translation>IA</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+105"/>
        <location line="+507"/>
        <source>Training</source>
        <translation>Entraînement</translation>
    </message>
    <message>
        <location line="-610"/>
        <source>Open an image (File &gt; Open Image) or a DICOM folder</source>
        <translation>Ouvrez une image (Fichier &gt; Ouvrir une image) ou un dossier DICOM</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Import into Share</source>
        <translation>Importer dans le partage</translation>
    </message>
    <message>
        <location line="+118"/>
        <source>Delineate - %1 (share)</source>
        <translation>Delineate - %1 (partage)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate - %1</source>
        <translation>Delineate - %1</translation>
    </message>
    <message>
        <location line="+24"/>
        <source> (review state unreadable)</source>
        <translation> (état de relecture illisible)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source> NOT TRUSTED: %1.</source>
        <translation> NON FIABLE : %1.</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source> %n review step(s) not counted (unsigned, forged or out of role).</source>
        <translation>
            <numerusform> %n étape de relecture non comptée (non signée, falsifiée ou hors rôle).</numerusform>
            <numerusform> %n étapes de relecture non comptées (non signées, falsifiées ou hors rôle).</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (not reviewed)</source>
        <translation> (non relu)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (submitted for review by %1)</source>
        <translation> (soumis à relecture par %1)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (approved by %1)</source>
        <translation> (approuvé par %1)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (sent back by %1: %2)</source>
        <translation> (renvoyé par %1 : %2)</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>One study at a time: opening %1</source>
        <translation>Une étude à la fois : ouverture de %1</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>W %1  L %2</source>
        <translation>L %1  N %2</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>LPS (%1, %2, %3) mm</source>
        <translation>LPS (%1, %2, %3) mm</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>   voxel (%1, %2, %3)   %4 %5</source>
        <translation>   voxel (%1, %2, %3)   %4 %5</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>HU</source>
        <translation>HU</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>value</source>
        <translation>valeur</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   label %1 %2</source>
        <translation>   étiquette %1 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   outside the image</source>
        <translation>   hors de l&apos;image</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1: cannot encode the screenshot</source>
        <translation>%1 : impossible d’encoder la capture d’écran</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>VISTA-3D checkpoint: %1</source>
        <translation>Checkpoint VISTA-3D : %1</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>AI engine: %1</source>
        <translation>Moteur IA : %1</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Dataset %1 version %2 saved: choose it in the Training dock</source>
        <translation>Jeu de données %1 version %2 enregistré : choisissez-le dans le panneau Entraînement</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>%1 (share %2)</source>
        <translation>%1 (partage %2)</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+12"/>
        <source>%1, %2 (share %3)</source>
        <translation>%1, %2 (partage %3)</translation>
    </message>
    <message>
        <location line="-8"/>
        <source>%1 (DICOM series %2)</source>
        <translation>%1 (série DICOM %2)</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>labels: %1</source>
        <translation>labels : %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The labels last saved with this study were written to %1, which is not there any more: the study opens without them</source>
        <translation>Les labels enregistrés en dernier avec cette étude ont été écrits dans %1, qui n&apos;existe plus : l&apos;étude s&apos;ouvre sans eux</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>A save to the share is running: cancel it or wait before closing</source>
        <translation>Un enregistrement vers le partage est en cours : annulez-le ou attendez avant de fermer</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>A training run (%1) is going on. Keep it running after the window closes? The window follows it again when it opens; No stops it with its checkpoint saved.</source>
        <translation>Un entraînement (%1) est en cours. Le laisser continuer après la fermeture de la fenêtre ? La fenêtre le suivra de nouveau à sa prochaine ouverture ; Non l&apos;arrête en enregistrant son point de contrôle.</translation>
    </message>
    <message>
        <location filename="../app/gui/shell/main_window_menus.cpp" line="+45"/>
        <source>&amp;File</source>
        <translation>&amp;Fichier</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open Image...</source>
        <translation>&amp;Ouvrir une image...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Image</source>
        <translation>Ouvrir une image</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open &amp;DICOM Folder...</source>
        <translation>Ouvrir un dossier &amp;DICOM...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open DICOM Folder</source>
        <translation>Ouvrir un dossier DICOM</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Open &amp;Label Map...</source>
        <translation>Ouvrir une &amp;carte d&apos;étiquettes...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Label Map</source>
        <translation>Ouvrir une carte d&apos;étiquettes</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>Images (%1);;All files (*)</source>
        <translation>Images (%1);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Open from S&amp;hare...</source>
        <translation>Ouvrir depuis le pa&amp;rtage...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open the &amp;Sample Study</source>
        <translation>Ouvrir l&apos;étude d&apos;&amp;exemple</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Import into Share...</source>
        <translation>&amp;Importer dans le partage...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Query/Retrieve from &amp;PACS...</source>
        <translation>Interroger/récupérer depuis le &amp;PACS...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label maps (%1);;All files (*)</source>
        <translation>Cartes d&apos;étiquettes (%1);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open DICOM S&amp;EG...</source>
        <translation>Ouvrir un S&amp;EG DICOM...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the segmentation was drawn on first</source>
        <translation>Ouvrez d’abord l’image sur laquelle la segmentation a été dessinée</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open DICOM SEG</source>
        <translation>Ouvrir un SEG DICOM</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+10"/>
        <source>DICOM (*.dcm);;All files (*)</source>
        <translation>DICOM (*.dcm);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Open &amp;RT Structure Set...</source>
        <translation>Ouvrir un &amp;RT Structure Set...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the structures were drawn on first</source>
        <translation>Ouvrez d&apos;abord l&apos;image sur laquelle les structures ont été dessinées</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open RT Structure Set</source>
        <translation>Ouvrir un RT Structure Set</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open Labels from &amp;Share...</source>
        <translation>Ouvrir des étiquettes depuis le pa&amp;rtage...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1: the share holds no label set revision</source>
        <translation>%1&#xa0;: le partage ne contient aucune révision de jeu d&apos;étiquettes</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Open Labels from Share</source>
        <translation>Ouvrir des étiquettes depuis le partage</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision:</source>
        <translation>Révision&#xa0;:</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 / %2 r%3 is not bound to an image on the share: open its image first</source>
        <translation>%1 / %2 r%3 n’est lié à aucune image du partage : ouvrez d’abord son image</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Recent Studies</source>
        <translation>Études récentes</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Save to Share</source>
        <translation>&amp;Enregistrer sur le partage</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save to Share &amp;As...</source>
        <translation>Enregistrer sur le partage &amp;sous...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save &amp;Labels As...</source>
        <translation>Enregistrer les étiquettes so&amp;us...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save Labels As</source>
        <translation>Enregistrer les étiquettes sous</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</source>
        <translation>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Save &amp;Screenshot...</source>
        <translation>Enregistrer une cap&amp;ture d&apos;écran...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save Screenshot</source>
        <translation>Enregistrer une capture d&apos;écran</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PNG (*.png)</source>
        <translation>PNG (*.png)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Export</source>
        <translation>E&amp;xporter</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Send to PA&amp;CS...</source>
        <translation>Envoyer au P&amp;ACS...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open a study first: Send to PACS sends its labels as a DICOM SEG with their measurement report</source>
        <translation>Ouvrez d’abord une étude&#xa0;: «&#xa0;Envoyer au PACS&#xa0;» envoie ses étiquettes sous forme de SEG DICOM avec leur rapport de mesures</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Send to PACS Includes an &amp;RT Structure Set</source>
        <translation>L&apos;envoi au PACS inclut un &amp;RT Structure Set</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;Preferences...</source>
        <translation>&amp;Préférences...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&amp;Quit</source>
        <translation>&amp;Quitter</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Edit</source>
        <translation>&amp;Édition</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;AI</source>
        <translation>&amp;IA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Everything</source>
        <translation>Segmenter &amp;tout</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Selected Classes</source>
        <translation>Segmenter les classes &amp;sélectionnées</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model &amp;Registry...</source>
        <translation>&amp;Registre des modèles...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Get Models...</source>
        <translation>&amp;Obtenir des modèles...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Review</source>
        <translation>&amp;Révision</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Submit for Review</source>
        <translation>&amp;Soumettre pour révision</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Approve</source>
        <translation>&amp;Approuver</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Send &amp;Back...</source>
        <translation>&amp;Renvoyer...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;View</source>
        <translation>Affic&amp;hage</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Layout</source>
        <translation>Disposition</translation>
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
        <translation>Panneaux</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Window/Level</source>
        <translation>Fenêtrage</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Automatic (image range)</source>
        <translation>Automatique (plage de l&apos;image)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Reset Views</source>
        <translation>&amp;Réinitialiser les vues</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label &amp;Outlines</source>
        <translation>&amp;Contours des étiquettes</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Slices in &amp;3D</source>
        <translation>Coupes en &amp;3D</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Show &amp;Crosshair</source>
        <translation>Afficher le ré&amp;ticule</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;Help</source>
        <translation>&amp;Aide</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Keyboard Shortcuts and Mouse</source>
        <translation>&amp;Raccourcis clavier et souris</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Delineate</source>
        <translation>À &amp;propos de Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About Delineate</source>
        <translation>À propos de Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate %1: 3D medical image segmentation and annotation.</source>
        <translation>Delineate %1&#xa0;: segmentation et annotation d&apos;images médicales 3D.</translation>
    </message>
    <message>
        <location filename="../app/gui/base/window_level.cpp" line="+32"/>
        <source>Soft tissue</source>
        <translation>Tissus mous</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lung</source>
        <translation>Poumon</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bone</source>
        <translation>Os</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brain</source>
        <translation>Cerveau</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelDownloadsDialog</name>
    <message>
        <location filename="../app/gui/ai/model_downloads.cpp" line="+67"/>
        <source>Get Models</source>
        <translation>Obtenir des modèles</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model weights are not installed with Delineate. Download a known model or one from a URL (its SHA-256 is checked before it is used), or register a file you already have. Engines find them as model:NAME.</source>
        <translation>Les poids des modèles ne sont pas installés avec Delineate. Téléchargez un modèle connu ou un modèle depuis une URL (son SHA-256 est vérifié avant usage), ou enregistrez un fichier que vous avez déjà. Les moteurs les trouvent sous model:NOM.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Known public models:</source>
        <translation>Modèles publics connus :</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+11"/>
        <source>Name</source>
        <translation>Nom</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+11"/>
        <location line="+156"/>
        <source>Licence</source>
        <translation>Licence</translation>
    </message>
    <message>
        <location line="-167"/>
        <location line="+11"/>
        <source>Size</source>
        <translation>Taille</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Where from</source>
        <translation>Provenance</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>On this computer:</source>
        <translation>Sur cet ordinateur :</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>File</source>
        <translation>Fichier</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SHA-256</source>
        <translation>SHA-256</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>a known model&apos;s name, or https://...</source>
        <translation>nom d&apos;un modèle connu, ou https://...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the name engines find it by (a known model&apos;s own by default)</source>
        <translation>le nom sous lequel les moteurs le trouvent (par défaut celui du modèle connu)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>optional: the SHA-256 the file must have</source>
        <translation>facultatif : le SHA-256 que le fichier doit avoir</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model or URL:</source>
        <translation>Modèle ou URL :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Nom :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SHA-256:</source>
        <translation>SHA-256 :</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Download</source>
        <translation>Télécharger</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Register File...</source>
        <translation>Enregistrer un fichier...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Use for VISTA-3D</source>
        <translation>Utiliser pour VISTA-3D</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel Download</source>
        <translation>Annuler le téléchargement</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+4"/>
        <source>Register a Model File</source>
        <translation>Enregistrer un fichier de modèle</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Model weights (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>Poids de modèle (*.pt *.pth *.safetensors);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Name engines find it by:</source>
        <translation>Nom sous lequel les moteurs le trouvent :</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>no direct download: %1</source>
        <translation>pas de téléchargement direct : %1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(verified)</source>
        <translation>(vérifié)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>(no published hash)</source>
        <translation>(aucun hash publié)</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>A URL needs a name: what engines will find it by.</source>
        <translation>Une URL a besoin d&apos;un nom : celui sous lequel les moteurs la trouveront.</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 is neither a known model nor an http(s) URL.</source>
        <translation>%1 n&apos;est ni un modèle connu ni une URL http(s).</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 has no direct download: get %2 from %3 (licence: %4), then Register File.</source>
        <translation>%1 n&apos;a pas de téléchargement direct : obtenez %2 depuis %3 (licence : %4), puis Enregistrer un fichier.</translation>
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

Depuis : %2
Licence : %3
Taille : %4
SHA-256 : %5

Accepter la licence et télécharger ?</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not published</source>
        <translation>non publiée</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>none published (recorded as unverified)</source>
        <translation>aucun publié (enregistré comme non vérifié)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Downloading %1...</source>
        <translation>Téléchargement de %1...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: %2 MB, SHA-256 %3 (%4). Engines find it as model:%1.</source>
        <translation>%1 : %2 Mo, SHA-256 %3 (%4). Les moteurs le trouvent sous model:%1.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>verified</source>
        <translation>vérifié</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no published hash to check it against</source>
        <translation>aucun hash publié pour le vérifier</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Resumed: %1 bytes from an earlier download, %2 broken connection(s).</source>
        <translation>Repris : %1 octets d&apos;un téléchargement précédent, %2 connexion(s) interrompue(s).</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Hashing %1...</source>
        <translation>Calcul du hash de %1...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 registered: %2 (SHA-256 %3). Engines find it as model:%1.</source>
        <translation>%1 enregistré : %2 (SHA-256 %3). Les moteurs le trouvent sous model:%1.</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>The VISTA-3D checkpoint is now %1.</source>
        <translation>Le checkpoint VISTA-3D est maintenant %1.</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelRegistryDialog</name>
    <message>
        <location filename="../app/gui/ai/model_registry.cpp" line="+131"/>
        <source>Model Registry</source>
        <translation>Registre des modèles</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models, every checkpoint revision. Choose one to see its Dice per structure, two to compare them; &quot;Use as AI engine&quot; segments with the chosen one.</source>
        <translation>Les modèles entraînés du partage, chaque révision de checkpoint. Choisissez-en une pour voir son Dice par structure, deux pour les comparer ; « Utiliser comme moteur IA » segmente avec celle choisie.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>Modèle</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision</source>
        <translation>Révision</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Architecture</source>
        <translation>Architecture</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Classes</source>
        <translation>Classes</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Validation Dice</source>
        <translation>Dice de validation</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dataset</source>
        <translation>Jeu de données</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Iteration</source>
        <translation>Itération</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved by</source>
        <translation>Enregistré par</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved</source>
        <translation>Enregistré</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Status</source>
        <translation>État</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Refresh</source>
        <translation>Actualiser</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Use as AI engine</source>
        <translation>Utiliser comme moteur IA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>No share is open: open a study from a share first (File &gt; Open from Share)</source>
        <translation>Aucun partage ouvert : ouvrez d&apos;abord une étude d&apos;un partage (Fichier &gt; Ouvrir depuis le partage)</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>not validated</source>
        <translation>non validé</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>These weights (iteration %1) were not validated; the last validation, at iteration %2, measured earlier weights</source>
        <translation>Ces poids (itération %1) n’ont pas été validés ; la dernière validation, à l’itération %2, mesurait des poids antérieurs</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>These weights (iteration %1) were not validated</source>
        <translation>Ces poids (itération %1) n’ont pas été validés</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validated at iteration %1</source>
        <translation>Validé à l’itération %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The run&apos;s best validation Dice up to these weights: %1</source>
        <translation>Meilleur Dice de validation de l&apos;exécution jusqu&apos;à ces poids : %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 v%2</source>
        <translation>%1 v%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>case list</source>
        <translation>liste de cas</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(%1 train, %2 validation)</source>
        <translation>(%1 entraînement, %2 validation)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>being trained by %1</source>
        <translation>en cours d&apos;entraînement par %1</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>The share has no trained model yet: train one in the Training dock</source>
        <translation>Le partage n&apos;a pas encore de modèle entraîné : entraînez-en un dans le panneau Entraînement</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint revisions: %1. Choose one, or two to compare</source>
        <translation>Révisions de checkpoint : %1. Choisissez-en une, ou deux pour comparer</translation>
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
        <translation>Structure</translation>
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
        <translation>Choisissez une révision, ou deux pour comparer</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Difference</source>
        <translation>Différence</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>%1: not validated (iteration %2; the last validation, at iteration %3, measured earlier weights)</source>
        <translation>%1 : non validé (itération %2 ; la dernière validation, à l’itération %3, mesurait des poids antérieurs)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: not validated (iteration %2)</source>
        <translation>%1 : non validé (itération %2)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: validation Dice %2 (structures: %3)</source>
        <translation>%1 : Dice de validation %2 (structures : %3)</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+13"/>
        <location line="+1"/>
        <source>none</source>
        <translation>aucun</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>validated at iteration %1</source>
        <translation>validé à l’itération %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>at iteration %1</source>
        <translation>à l&apos;itération %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>learnt from dataset %1 version %2</source>
        <translation>appris du jeu de données %1 version %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>saved by %1</source>
        <translation>enregistré par %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 against %2: validation Dice %3 and %4; structures better: %5, worse: %6</source>
        <translation>%1 contre %2 : Dice de validation %3 et %4 ; structures meilleures : %5, moins bonnes : %6</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+1"/>
        <source>none (not validated)</source>
        <translation>aucun (non validé)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsBrowserDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_browser.cpp" line="+129"/>
        <source>Query/Retrieve from PACS</source>
        <translation>Interroger/récupérer depuis le PACS</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Doe^J*</source>
        <translation>Dupont^J*</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>from YYYY-MM-DD</source>
        <translation>du AAAA-MM-JJ</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>au AAAA-MM-JJ</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any</source>
        <translation>Toutes</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Search</source>
        <translation>&amp;Rechercher</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Server:</source>
        <translation>Serveur&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient name:</source>
        <translation>Nom du patient&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient ID:</source>
        <translation>ID patient&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Accession:</source>
        <translation>N° d’accès&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Modality:</source>
        <translation>Modalité&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study date:</source>
        <translation>Date de l’étude&#xa0;:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Description:</source>
        <translation>Description&#xa0;:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Patient</source>
        <translation>Patient</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Patient ID</source>
        <translation>ID patient</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Birth date</source>
        <translation>Date de naissance</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Study date</source>
        <translation>Date de l’étude</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+2"/>
        <source>Description</source>
        <translation>Description</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Accession</source>
        <translation>N° d’accès</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modalities</source>
        <translation>Modalités</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Series</source>
        <translation>Séries</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Number</source>
        <translation>Numéro</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modality</source>
        <translation>Modalité</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Instances</source>
        <translation>Instances</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Import into the share:</source>
        <translation>Importer dans le partage&#xa0;:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Off: the series is kept in this computer&apos;s cache for a look, not imported</source>
        <translation>Désactivé&#xa0;: la série est conservée dans le cache de cet ordinateur pour consultation, sans être importée</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Browse...</source>
        <translation>Parcourir...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Retrieve</source>
        <translation>Ré&amp;cupérer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The chosen series, or all of the study&apos;s when none is chosen</source>
        <translation>Les séries choisies, ou toutes celles de l’étude si aucune n’est choisie</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open</source>
        <translation>&amp;Ouvrir</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Share to import into</source>
        <translation>Partage dans lequel importer</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+56"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>Aucun serveur PACS n’est configuré&#xa0;: ajoutez-en un dans Préférences &gt; Serveurs PACS</translation>
    </message>
    <message>
        <location line="-17"/>
        <source>Working</source>
        <translation>En cours</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Searching</source>
        <translation>Recherche</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieving</source>
        <translation>Récupération</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Importing into the share</source>
        <translation>Import dans le partage</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cancelling...</source>
        <translation>Annulation...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Study date: &apos;%1&apos; is not a date (YYYY-MM-DD)</source>
        <translation>Date de l’étude&#xa0;: «&#xa0;%1&#xa0;» n’est pas une date (AAAA-MM-JJ)</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Searching %1...</source>
        <translation>Recherche sur %1...</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Search cancelled</source>
        <translation>Recherche annulée</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search failed: %1</source>
        <translation>Échec de la recherche&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Studies found on %1: %2</source>
        <translation>Études trouvées sur %1&#xa0;: %2</translation>
    </message>
    <message>
        <location line="+122"/>
        <source>Instances retrieved: %1 (%2 MB), already here: %3</source>
        <translation>Instances récupérées&#xa0;: %1 (%2 Mo), déjà présentes&#xa0;: %3</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>instances that did not arrive: %1 (Retrieve again asks for them)</source>
        <translation>instances non arrivées&#xa0;: %1 (Récupérer à nouveau les redemande)</translation>
    </message>
    <message numerus="yes">
        <location line="+14"/>
        <source>Imported into the share: %n series, files copied: %1</source>
        <translation>
            <numerusform>Importé dans le partage&#xa0;: %n série, fichiers copiés&#xa0;: %1</numerusform>
            <numerusform>Importé dans le partage&#xa0;: %n séries, fichiers copiés&#xa0;: %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="-123"/>
        <source>Listing the series of the study...</source>
        <translation>Liste des séries de l’étude...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The series could not be listed: %1</source>
        <translation>Les séries n’ont pas pu être listées&#xa0;: %1</translation>
    </message>
    <message numerus="yes">
        <location line="+23"/>
        <source>%n series in the study</source>
        <translation>
            <numerusform>%n série dans l’étude</numerusform>
            <numerusform>%n séries dans l’étude</numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Choose a study first (its series are listed below it)</source>
        <translation>Choisissez d’abord une étude (ses séries sont listées en dessous)</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Choose the share to import into, or turn Import into the share off for a look</source>
        <translation>Choisissez le partage dans lequel importer, ou désactivez «&#xa0;Importer dans le partage&#xa0;» pour une simple consultation</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No author name: the retrieve was not started</source>
        <translation>Aucun nom d’auteur&#xa0;: la récupération n’a pas été lancée</translation>
    </message>
    <message numerus="yes">
        <location line="+10"/>
        <source>Retrieving %n series from %1...</source>
        <translation>
            <numerusform>Récupération de %n série depuis %1...</numerusform>
            <numerusform>Récupération de %n séries depuis %1...</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Retrieve cancelled: what arrived stays, Retrieve again finishes it</source>
        <translation>Récupération annulée&#xa0;: ce qui est arrivé reste, une nouvelle récupération la termine</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieve failed: %1</source>
        <translation>Échec de la récupération&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Import into the share failed: %1</source>
        <translation>Échec de l’import dans le partage&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The audit record was not written: %1</source>
        <translation>L’enregistrement d’audit n’a pas été écrit&#xa0;: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsPeer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_peer.cpp" line="+93"/>
        <source>token</source>
        <translation>jeton</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>password</source>
        <translation>mot de passe</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: no %2 is stored for this server (set it in Preferences, PACS Servers)</source>
        <translation>%1&#xa0;: aucun %2 n’est enregistré pour ce serveur (définissez-le dans Préférences &gt; Serveurs PACS)</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The PACS answered &apos;%1&apos; as a UID, which is not one: not used as a folder name</source>
        <translation>Le PACS a renvoyé «&#xa0;%1&#xa0;» comme UID, ce qui n’en est pas un&#xa0;: non utilisé comme nom de dossier</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsSendDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_send.cpp" line="+35"/>
        <source>Send to PACS</source>
        <translation>Envoyer au PACS</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Send</source>
        <translation>&amp;Envoyer</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel</source>
        <translation>Annuler</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>Fermer</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Server:</source>
        <translation>Serveur&#xa0;:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What:</source>
        <translation>Contenu&#xa0;:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>the labels as a DICOM SEG and their measurement report (SR)</source>
        <translation>les étiquettes sous forme de SEG DICOM et leur rapport de mesures (SR)</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+26"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>Aucun serveur PACS n’est configuré&#xa0;: ajoutez-en un dans Préférences &gt; Serveurs PACS</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Cancelling...</source>
        <translation>Annulation...</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+6"/>
        <location line="+5"/>
        <source>The files to send could not be made: %1</source>
        <translation>Les fichiers à envoyer n’ont pas pu être créés&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Sending the SEG and its report to %1...</source>
        <translation>Envoi du SEG et de son rapport à %1...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Sent to %1 (%2): the SEG and its measurement report</source>
        <translation>Envoyé à %1 (%2)&#xa0;: le SEG et son rapport de mesures</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Sending cancelled: the PACS may hold part of it</source>
        <translation>Envoi annulé&#xa0;: le PACS en a peut-être déjà reçu une partie</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not sent: %1</source>
        <translation>Non envoyé&#xa0;: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers.cpp" line="+55"/>
        <source>%1 &apos;%2&apos; does not exist</source>
        <translation>%1&#xa0;: «&#xa0;%2&#xa0;» n’existe pas</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; is not a file</source>
        <translation>%1&#xa0;: «&#xa0;%2&#xa0;» n’est pas un fichier</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; cannot be read</source>
        <translation>%1&#xa0;: «&#xa0;%2&#xa0;» ne peut pas être lu</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>the keyring did not answer within %1 s</source>
        <translation>le trousseau de clés n’a pas répondu dans les %1 s</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>keyring error %1</source>
        <translation>erreur du trousseau de clés %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The name is empty</source>
        <translation>Le nom est vide</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 &apos;%2&apos; is not an AE title (1 to 16 characters, no backslash)</source>
        <translation>%1&#xa0;: «&#xa0;%2&#xa0;» n’est pas un titre AE valide (1 à 16 caractères, sans barre oblique inverse)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AE title</source>
        <translation>Titre AE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The host is empty</source>
        <translation>L’hôte est vide</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Port %1 is not a port (1 to 65535)</source>
        <translation>Le port %1 n’est pas un port valide (1 à 65535)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our AE title</source>
        <translation>Notre titre AE</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>C-MOVE AE title</source>
        <translation>Titre AE C-MOVE</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-MOVE port %1 is not a port (1 to 65535)</source>
        <translation>Le port C-MOVE %1 n’est pas un port valide (1 à 65535)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs the CA file the PACS&apos;s certificate chains to</source>
        <translation>TLS nécessite le fichier CA auquel remonte la chaîne de certificats du PACS</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>URL &apos;%1&apos; is not an http:// or https:// URL</source>
        <translation>L’URL «&#xa0;%1&#xa0;» n’est pas une URL http:// ou https://</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>URL &apos;%1&apos; holds a user name or password: use the authentication fields</source>
        <translation>L’URL «&#xa0;%1&#xa0;» contient un nom d’utilisateur ou un mot de passe&#xa0;: utilisez les champs d’authentification</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs an https:// URL</source>
        <translation>TLS nécessite une URL https://</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Basic authentication needs a user name</source>
        <translation>L’authentification basic nécessite un nom d’utilisateur</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>CA file</source>
        <translation>Fichier CA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate</source>
        <translation>Notre certificat</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key</source>
        <translation>Notre clé privée</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our private key needs our certificate</source>
        <translation>Notre clé privée nécessite notre certificat</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate needs its private key</source>
        <translation>Notre certificat nécessite sa clé privée</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Requests in flight %1 is not between 1 and 16</source>
        <translation>Requêtes simultanées&#xa0;: %1 n’est pas compris entre 1 et 16</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>PACS server &apos;%1&apos;: %2</source>
        <translation>Serveur PACS «&#xa0;%1&#xa0;»&#xa0;: %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Two PACS servers are named &apos;%1&apos;</source>
        <translation>Deux serveurs PACS s’appellent «&#xa0;%1&#xa0;»</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>The settings file %1 could not be written</source>
        <translation>Le fichier de configuration %1 n’a pas pu être écrit</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>no keyring answered (%1): the secret of &apos;%2&apos; is kept for this session only</source>
        <translation>aucun trousseau de clés n’a répondu (%1)&#xa0;: le secret de «&#xa0;%2&#xa0;» est conservé pour cette session seulement</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>the keyring holds no secret for &apos;%1&apos;</source>
        <translation>le trousseau de clés ne contient aucun secret pour «&#xa0;%1&#xa0;»</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no keyring answered (%1): no secret for &apos;%2&apos;</source>
        <translation>aucun trousseau de clés n’a répondu (%1)&#xa0;: aucun secret pour «&#xa0;%2&#xa0;»</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>no keyring answered (%1): a secret of &apos;%2&apos; may still be in it</source>
        <translation>aucun trousseau de clés n’a répondu (%1)&#xa0;: un secret de «&#xa0;%2&#xa0;» s’y trouve peut-être encore</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServerDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_dialog.cpp" line="+31"/>
        <source>Add PACS Server</source>
        <translation>Ajouter un serveur PACS</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Edit PACS Server</source>
        <translation>Modifier le serveur PACS</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Name:</source>
        <translation>Nom&#xa0;:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DIMSE (C-FIND, C-GET or C-MOVE)</source>
        <translation>DIMSE (C-FIND, C-GET ou C-MOVE)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb (QIDO-RS, WADO-RS)</source>
        <translation>DICOMweb (QIDO-RS, WADO-RS)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Protocol:</source>
        <translation>Protocole&#xa0;:</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the PACS&apos;s AE title</source>
        <translation>titre AE du PACS</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AE title:</source>
        <translation>Titre AE&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Host:</source>
        <translation>Hôte&#xa0;:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Port:</source>
        <translation>Port&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our AE title:</source>
        <translation>Notre titre AE&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-GET</source>
        <translation>C-GET</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE to our storage SCP</source>
        <translation>C-MOVE vers notre SCP de stockage</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Retrieve by:</source>
        <translation>Récupérer par&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>our AE title</source>
        <translation>notre titre AE</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE destination AE title:</source>
        <translation>Titre AE de destination C-MOVE&#xa0;:</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>C-MOVE port we listen on:</source>
        <translation>Port d’écoute C-MOVE&#xa0;:</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>URL:</source>
        <translation>URL&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>None</source>
        <translation>Aucune</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User name and password (basic)</source>
        <translation>Nom d’utilisateur et mot de passe (basic)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Token (bearer)</source>
        <translation>Jeton (bearer)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Authentication:</source>
        <translation>Authentification&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>User:</source>
        <translation>Utilisateur&#xa0;:</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Kept in the desktop keyring, never in the settings file.</source>
        <translation>Conservé dans le trousseau de clés du bureau, jamais dans le fichier de configuration.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Use TLS</source>
        <translation>Utiliser TLS</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS:</source>
        <translation>TLS&#xa0;:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Browse...</source>
        <translation>Parcourir...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>PEM files (*.pem *.crt *.key);;All files (*)</source>
        <translation>Fichiers PEM (*.pem *.crt *.key);;Tous les fichiers (*)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CA file:</source>
        <translation>Fichier CA&#xa0;:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Certificate Authorities (PEM)</source>
        <translation>Autorités de certification (PEM)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb: the system&apos;s certificate authorities</source>
        <translation>DICOMweb&#xa0;: les autorités de certification du système</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate:</source>
        <translation>Notre certificat&#xa0;:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Certificate (PEM)</source>
        <translation>Notre certificat (PEM)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>only where the PACS asks for one</source>
        <translation>uniquement si le PACS en demande un</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key:</source>
        <translation>Notre clé privée&#xa0;:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Private Key (PEM)</source>
        <translation>Notre clé privée (PEM)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Associations (DIMSE) or HTTP requests (DICOMweb) at once when retrieving</source>
        <translation>Associations (DIMSE) ou requêtes HTTP (DICOMweb) simultanées lors de la récupération</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Requests in flight:</source>
        <translation>Requêtes simultanées&#xa0;:</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Another server is named &apos;%1&apos;</source>
        <translation>Un autre serveur s’appelle déjà «&#xa0;%1&#xa0;»</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The token is empty</source>
        <translation>Le jeton est vide</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The password is empty</source>
        <translation>Le mot de passe est vide</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Token:</source>
        <translation>Jeton&#xa0;:</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Password:</source>
        <translation>Mot de passe&#xa0;:</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServersPage</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_page.cpp" line="+46"/>
        <source>The PACS the window queries and retrieves from. Passwords and tokens are kept in the desktop keyring, never in the settings file.</source>
        <translation>Les PACS que la fenêtre interroge et depuis lesquels elle récupère. Les mots de passe et jetons sont conservés dans le trousseau de clés du bureau, jamais dans le fichier de configuration.</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>&amp;Add...</source>
        <translation>&amp;Ajouter...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Edit...</source>
        <translation>&amp;Modifier...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Remove</source>
        <translation>&amp;Supprimer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Test</source>
        <translation>&amp;Tester</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-ECHO (DIMSE) or a study query (DICOMweb): whether the server answers us</source>
        <translation>C-ECHO (DIMSE) ou une requête d’études (DICOMweb)&#xa0;: le serveur nous répond-il&#xa0;?</translation>
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
        <translation>%1&#xa0;: %2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Asking %1 (%2)...</source>
        <translation>Interrogation de %1 (%2)...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 (%2) answered in %3 ms</source>
        <translation>%1 (%2) a répondu en %3 ms</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PdfReport</name>
    <message>
        <location filename="../app/gui/reports/pdf_report.cpp" line="+53"/>
        <source>label %1</source>
        <translation>étiquette %1</translation>
    </message>
    <message>
        <location line="+183"/>
        <source>Page %1 of %2</source>
        <translation>Page %1 sur %2</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+194"/>
        <source>De-identified report</source>
        <translation>Rapport anonymisé</translation>
    </message>
    <message>
        <location line="-194"/>
        <location line="+203"/>
        <source>Segmentation report</source>
        <translation>Rapport de segmentation</translation>
    </message>
    <message>
        <location line="-199"/>
        <source>Patient: %1</source>
        <translation>Patient : %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study: %1</source>
        <translation>Étude&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Series: %1</source>
        <translation>Série&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Report date: %1</source>
        <translation>Date du rapport&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Image: %1 × %2 × %3 voxels of %4 × %5 × %6 mm%7</source>
        <translation>Image&#xa0;: %1 × %2 × %3 voxels de %4 × %5 × %6 mm%7</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, intensities in HU</source>
        <translation>, intensités en HU</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Software: Delineate</source>
        <translation>Logiciel&#xa0;: Delineate</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Software: Delineate %1</source>
        <translation>Logiciel&#xa0;: Delineate %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Label statistics</source>
        <translation>Statistiques des étiquettes</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Label statistics (continued)</source>
        <translation>Statistiques des étiquettes (suite)</translation>
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
        <translation>Nom</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Voxels</source>
        <translation>Voxels</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>Volume</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>%1 %2: %3, centroid (%4, %5, %6) mm LPS</source>
        <translation>%1 %2 : %3, centroïde (%4, %5, %6) mm LPS</translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Mean</source>
        <translation>Moyenne</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SD</source>
        <translation>ÉT</translation>
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
        <translation>Médiane</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Longest diameter (mm)</source>
        <translation>Plus grand diamètre (mm)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No labels.</source>
        <translation>Aucune étiquette.</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Key images</source>
        <translation>Images clés</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>Coronal</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>%1, slice %2 of %3</source>
        <translation>%1, coupe %2 sur %3</translation>
    </message>
    <message>
        <location line="+90"/>
        <source>Segmentation report: %1</source>
        <translation>Rapport de segmentation&#xa0;: %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PreferencesDialog</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="-134"/>
        <source>Preferences</source>
        <translation>Préférences</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>General</source>
        <translation>Général</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>PACS Servers</source>
        <translation>Serveurs PACS</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System default</source>
        <translation>Langue du système</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Language:</source>
        <translation>Langue&#xa0;:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Author name for saves:</source>
        <translation>Nom d&apos;auteur des enregistrements&#xa0;:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Autosave unsaved edits every:</source>
        <translation>Enregistrer automatiquement les modifications toutes les&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>none: the classic CPU engine</source>
        <translation>aucun&#xa0;: le moteur CPU classique</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Browse...</source>
        <translation>Parcourir...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>VISTA-3D checkpoint:</source>
        <translation>Checkpoint VISTA-3D&#xa0;:</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AI device:</source>
        <translation>Périphérique IA&#xa0;:</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Automatic (reduced on software OpenGL)</source>
        <translation>Automatique (réduit en OpenGL logiciel)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Full</source>
        <translation>Complet</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reduced</source>
        <translation>Réduit</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>How finely the 3D view meshes large labels. Exported surface files are always meshed at full detail.</source>
        <translation>Finesse du maillage des grands labels dans la vue 3D. Les fichiers de surfaces exportés sont toujours maillés au détail complet.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>3D surface detail:</source>
        <translation>Détail des surfaces 3D :</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>VISTA-3D Checkpoint</source>
        <translation>Checkpoint VISTA-3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoints (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>Checkpoints (*.pt *.pth *.safetensors);;Tous les fichiers (*)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SessionFiles</name>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+148"/>
        <source>The recovered labels do not fit %1&apos;s grid</source>
        <translation>Les étiquettes récupérées ne correspondent pas à la grille de %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Recovered the unsaved edits: save them to keep them</source>
        <translation>Modifications non enregistrées récupérées&#xa0;: enregistrez-les pour les conserver</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Unsaved Edits</source>
        <translation>Modifications non enregistrées</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The labels have unsaved edits. Save them to the share?</source>
        <translation>Les étiquettes comportent des modifications non enregistrées. Les enregistrer sur le partage&#xa0;?</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Autosave is off: %1</source>
        <translation>Enregistrement automatique désactivé&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Autosave failed: %1</source>
        <translation>Échec de l&apos;enregistrement automatique&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Save to Share</source>
        <translation>Enregistrer sur le partage</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+81"/>
        <source>a folder on the network share; Create Share makes a new one</source>
        <translation>un dossier du partage réseau ; « Créer un partage » en crée un nouveau</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Browse...</source>
        <translation>Parcourir...</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+1"/>
        <source>Create Share</source>
        <translation>Créer un partage</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Make this folder a new share store</source>
        <translation>Faire de ce dossier un nouveau partage</translation>
    </message>
    <message>
        <location line="+12"/>
        <location filename="../app/gui/study/share_import.cpp" line="+5"/>
        <source>Share folder:</source>
        <translation>Dossier partagé&#xa0;:</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study:</source>
        <translation>Étude&#xa0;:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>Jeu d&apos;étiquettes&#xa0;:</translation>
    </message>
    <message>
        <location line="+4"/>
        <location filename="../app/gui/study/share_import.cpp" line="+4"/>
        <location line="+23"/>
        <source>Share Folder</source>
        <translation>Dossier partagé</translation>
    </message>
    <message>
        <location line="+7"/>
        <location filename="../app/gui/study/share_import.cpp" line="-16"/>
        <source>Folder for the New Share</source>
        <translation>Dossier du nouveau partage</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="-40"/>
        <location line="+68"/>
        <source>Choose a folder first.</source>
        <translation>Choisissez d’abord un dossier.</translation>
    </message>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="-66"/>
        <source>%1 is a share already.</source>
        <translation>%1 est déjà un partage.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: the folder cannot be created</source>
        <translation>%1 : le dossier ne peut pas être créé</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No share was created: %1</source>
        <translation>Aucun partage n’a été créé : %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Created a share in %1.</source>
        <translation>Partage créé dans %1.</translation>
    </message>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+31"/>
        <source>No share to save to: use Save to Share As</source>
        <translation>Aucun partage où enregistrer&#xa0;: utilisez «&#xa0;Enregistrer sur le partage sous&#xa0;»</translation>
    </message>
    <message>
        <location line="+95"/>
        <source>Finish the stroke before saving</source>
        <translation>Terminez le trait avant d&apos;enregistrer</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 / %2: study and label set names may hold letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos; only</source>
        <translation>%1 / %2&#xa0;: les noms d&apos;étude et de jeu d&apos;étiquettes ne peuvent contenir que des lettres, des chiffres, &apos;-&apos;, &apos;_&apos; et &apos;.&apos;</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) before saving</source>
        <translation>Attendez la fin de la tâche en cours (ou annulez-la) avant d’enregistrer</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Not saved: out of memory copying the labels for the save</source>
        <translation>Non enregistré : mémoire insuffisante pour copier les étiquettes</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Saving to the share</source>
        <translation>Enregistrement vers le partage</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>The cancelled save finished when the share answered: %1 / %2 revision %3 (the labels in the window are still marked unsaved)</source>
        <translation>L’enregistrement annulé s’est terminé quand le partage a répondu : %1 / %2 révision %3 (les étiquettes de la fenêtre restent marquées non enregistrées)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Save cancelled: the share has not answered. The labels stay unsaved (and in the autosave journal). If the share answers before the revision is made, none is made.</source>
        <translation>Enregistrement annulé : le partage n’a pas répondu. Les étiquettes restent non enregistrées (et dans le journal de sauvegarde automatique). Si le partage répond avant que la révision soit créée, aucune n’est créée.</translation>
    </message>
    <message>
        <location line="-57"/>
        <source>Save cancelled; no revision was made</source>
        <translation>Enregistrement annulé ; aucune révision n’a été créée</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+123"/>
        <source>Not saved: %1</source>
        <translation>Non enregistré&#xa0;: %1</translation>
    </message>
    <message>
        <location line="-184"/>
        <source>The audit record was not written: %1</source>
        <translation>L&apos;entrée d&apos;audit n&apos;a pas été écrite : %1</translation>
    </message>
    <message>
        <location line="+133"/>
        <source>%1 on %2 is editing this label set too (since %3).</source>
        <translation>%1 sur %2 modifie aussi ce jeu d&apos;étiquettes (depuis %3).</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Saved %1 / %2 revision %3</source>
        <translation>%1 / %2 enregistré&#xa0;: révision %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Edits made during the save are not in it: the labels stay marked unsaved.</source>
        <translation>Les modifications faites pendant l’enregistrement n’y sont pas : les étiquettes restent marquées non enregistrées.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Revision %1 was saved by someone else after revision %2, which your edits started from. Your labels are saved as revision %3 and marked as a conflict; nothing was overwritten. Compare the two revisions before going on.</source>
        <translation>La révision %1 a été enregistrée par quelqu&apos;un d&apos;autre après la révision %2, sur laquelle reposent vos modifications. Vos étiquettes ont été enregistrées comme révision %3 et marquées comme conflit&#xa0;; rien n&apos;a été écrasé. Comparez les deux révisions avant de continuer.</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saved as a conflict revision</source>
        <translation>Enregistré comme révision en conflit</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Labels written to %1</source>
        <translation>Étiquettes écrites dans %1</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Delineate stopped on %1 with unsaved label edits of %2 (autosaved %3). Recover them?</source>
        <translation>Delineate s&apos;est arrêté sur %1 avec des modifications d&apos;étiquettes non enregistrées de %2 (enregistrement automatique&#xa0;: %3). Les récupérer&#xa0;?</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Recover Unsaved Edits</source>
        <translation>Récupérer les modifications non enregistrées</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Cannot recover: the image %1 is not there any more; the edits stay in %2</source>
        <translation>Récupération impossible&#xa0;: l&apos;image %1 n&apos;existe plus&#xa0;; les modifications restent dans %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cannot recover: %1</source>
        <translation>Récupération impossible&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>The label set&apos;s lease was lost (%1): another user may be editing it; your next save may become a conflict revision</source>
        <translation>Le verrou d&apos;édition du jeu d&apos;étiquettes a été perdu (%1)&#xa0;: un autre utilisateur est peut-être en train de le modifier&#xa0;; votre prochain enregistrement pourrait devenir une révision en conflit</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImportDialog</name>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="+71"/>
        <source>Import into Share</source>
        <translation>Importer dans le partage</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM folders or image files; several separated by ;</source>
        <translation>Dossiers DICOM ou fichiers image ; plusieurs séparés par ;</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Folder...</source>
        <translation>Dossier...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files...</source>
        <translation>Fichiers...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Import:</source>
        <translation>Importer :</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Browse...</source>
        <translation>Parcourir...</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>from the files (a DICOM study&apos;s UID, a volume file&apos;s name)</source>
        <translation>d’après les fichiers (UID d’une étude DICOM, nom d’un fichier de volume)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study name:</source>
        <translation>Nom de l’étude :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>De-identify DICOM (PS3.15 basic profile; pseudonyms from a key kept off the share)</source>
        <translation>Désidentifier le DICOM (profil de base PS3.15 ; pseudonymes issus d’une clé gardée hors du partage)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>key file (16+ bytes), not on the share</source>
        <translation>fichier de clé (16 octets ou plus), hors du partage</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Key:</source>
        <translation>Clé :</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Import</source>
        <translation>Importer</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Import Folder</source>
        <translation>Importer un dossier</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Import Files</source>
        <translation>Importer des fichiers</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Importing into %1...</source>
        <translation>Importation dans %1...</translation>
    </message>
    <message>
        <location line="-24"/>
        <source>De-identification Key</source>
        <translation>Clé de désidentification</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImporter</name>
    <message>
        <location line="+57"/>
        <source>An import is already running</source>
        <translation>Un import est déjà en cours</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nothing to import: choose DICOM folders or image files</source>
        <translation>Rien à importer : choisissez des dossiers DICOM ou des fichiers image</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose the share to import into</source>
        <translation>Choisissez le partage dans lequel importer</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>De-identification needs a key file (kept off the share)</source>
        <translation>La désidentification nécessite un fichier de clé (gardé hors du partage)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No author name: the import was not started</source>
        <translation>Aucun nom d’auteur : l’importation n’a pas été lancée</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Importing into %1</source>
        <translation>Import dans %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Import cancelled: what was copied stays, importing again finishes it</source>
        <translation>Import annulé : ce qui a été copié reste, un nouvel import le termine</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import failed: %1</source>
        <translation>Échec de l’import : %1</translation>
    </message>
    <message numerus="yes">
        <location line="+11"/>
        <source>%n series imported: %1 files copied, %2 already on the share</source>
        <translation>
            <numerusform>%n série importée : %1 fichiers copiés, %2 déjà sur le partage</numerusform>
            <numerusform>%n séries importées : %1 fichiers copiés, %2 déjà sur le partage</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not imported: %1</source>
        <translation>Non importé : %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (and %1 more)</source>
        <translation> (et %1 de plus)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>L’enregistrement d’audit n’a pas été écrit : %1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareReview</name>
    <message>
        <location filename="../app/gui/study/share_review.cpp" line="+71"/>
        <source>Send Back</source>
        <translation>Renvoyer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What should the author change? (stored with the review)</source>
        <translation>Que doit changer l&apos;auteur ? (enregistré avec la révision)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not sent back: say what to change in a comment</source>
        <translation>Non renvoyé : indiquez dans un commentaire ce qu&apos;il faut changer</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No share revision to review: open one from the share, or save the labels to the share first</source>
        <translation>Aucune révision du partage à réviser : ouvrez-en une depuis le partage, ou enregistrez d&apos;abord les labels sur le partage</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The labels have unsaved edits: a review is of revision %1 as it is on the share. Save (a new revision) or undo the edits first.</source>
        <translation>Les labels ont des modifications non enregistrées : une révision porte sur la révision %1 telle qu&apos;elle est sur le partage. Enregistrez d&apos;abord (une nouvelle révision) ou annulez les modifications.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) first</source>
        <translation>Attendez d&apos;abord la fin de la tâche en cours (ou annulez-la)</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 / %2 revision %3</source>
        <translation>%1 / %2 révision %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 not recorded: %2</source>
        <translation>%1 non enregistrée : %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submission</source>
        <translation>Soumission</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approval</source>
        <translation>Approbation</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sending back</source>
        <translation>Renvoi</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 submitted for review by %2</source>
        <translation>%1 soumise pour révision par %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 approved by %2</source>
        <translation>%1 approuvée par %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 sent back by %2</source>
        <translation>%1 renvoyée par %2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>L&apos;enregistrement d&apos;audit n&apos;a pas été écrit : %1</translation>
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
        <translation>Coronal</translation>
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
        <translation>− point : pas l&apos;objet ici</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ point: the object is here</source>
        <translation>+ point : l&apos;objet est ici</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− box: drag over what is not the object</source>
        <translation>− boîte : glisser sur ce qui n&apos;est pas l&apos;objet</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ box: drag around the object</source>
        <translation>+ boîte : glisser autour de l&apos;objet</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− scribble: paint over what is not the object</source>
        <translation>− trait : peindre sur ce qui n&apos;est pas l&apos;objet</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ scribble: paint over the object</source>
        <translation>+ trait : peindre sur l&apos;objet</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− lasso: circle what is not the object</source>
        <translation>− lasso : entourer ce qui n&apos;est pas l&apos;objet</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ lasso: circle part of the object</source>
        <translation>+ lasso : entourer une partie de l&apos;objet</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SliceRangeDialog</name>
    <message>
        <location filename="../app/gui/reports/slice_range_dialog.cpp" line="+17"/>
        <source>Statistics of a Slice Range</source>
        <translation>Statistiques d&apos;une plage de coupes</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Axial</source>
        <translation>Axial</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Coronal</source>
        <translation>Coronal</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Sagittal</source>
        <translation>Sagittal</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Slices of the view:</source>
        <translation>Coupes de la vue :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>From slice:</source>
        <translation>De la coupe :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>To slice:</source>
        <translation>À la coupe :</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyBrowserDialog</name>
    <message>
        <location filename="../app/gui/study/study_browser.cpp" line="+50"/>
        <source>Patient ID</source>
        <translation>ID patient</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Patient</source>
        <translation>Patient</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Date</source>
        <translation>Date</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modality</source>
        <translation>Modalité</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Description</source>
        <translation>Description</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label sets</source>
        <translation>Jeux d’étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latest revision</source>
        <translation>Dernière révision</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review</source>
        <translation>Relecture</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Editing</source>
        <translation>En cours d’édition</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study</source>
        <translation>Étude</translation>
    </message>
    <message>
        <location line="+105"/>
        <source>Open from Share</source>
        <translation>Ouvrir depuis le partage</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Share Folder...</source>
        <translation>Dossier du partage...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Search patient ID or name, description, study</source>
        <translation>Rechercher ID ou nom du patient, description, étude</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any modality</source>
        <translation>Toute modalité</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any label status</source>
        <translation>Tout état des étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No labels</source>
        <translation>Sans étiquettes</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Being edited</source>
        <translation>En cours d’édition</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Has revisions</source>
        <translation>A des révisions</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submitted for review</source>
        <translation>Soumis à relecture</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approved</source>
        <translation>Approuvé</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>from YYYY-MM-DD</source>
        <translation>du AAAA-MM-JJ</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>au AAAA-MM-JJ</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Series:</source>
        <translation>Série :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labels:</source>
        <translation>Étiquettes :</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Make Dataset...</source>
        <translation>Créer un jeu de données...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A training dataset of the chosen studies&apos; labels (choose several with Ctrl or Shift)</source>
        <translation>Un jeu de données d&apos;entraînement des labels des études choisies (choisissez-en plusieurs avec Ctrl ou Maj)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Share Folder</source>
        <translation>Dossier du partage</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>%1: the share does not answer (a hung network mount?)</source>
        <translation>%1 : le partage ne répond pas (un montage réseau bloqué ?)</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Share: %1</source>
        <translation>Partage : %1</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Make Dataset</source>
        <translation>Créer un jeu de données</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Approved revisions only</source>
        <translation>Révisions approuvées uniquement</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Studies (%1):</source>
        <translation>Études (%1) :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Nom :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>Jeu de labels :</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validation:</source>
        <translation>Validation :</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>A dataset needs chosen studies, a name and a label set</source>
        <translation>Un jeu de données demande des études choisies, un nom et un jeu de labels</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saving dataset %1...</source>
        <translation>Enregistrement du jeu de données %1...</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Dataset %1 not saved: %2</source>
        <translation>Jeu de données %1 non enregistré : %2</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Saved dataset %1 version %2: %3 entries (%4 train, %5 validation)</source>
        <translation>Jeu de données %1 version %2 enregistré : %3 entrées (%4 entraînement, %5 validation)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1% of %2 studies rounds to none: one study validates so that the model is measured</source>
        <translation>%1 % de %2 études s’arrondit à aucune : une étude sert à la validation pour que le modèle soit mesuré</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>warning: no validation study (one study cannot both train and validate): the model will not be validated</source>
        <translation>avertissement : aucune étude de validation (une étude ne peut pas à la fois entraîner et valider) : le modèle ne sera pas validé</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>skipped %1</source>
        <translation>ignorés : %1</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Reading the share&apos;s catalogue...</source>
        <translation>Lecture du catalogue du partage...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The share&apos;s catalogue could not be read: %1</source>
        <translation>Le catalogue du partage n’a pas pu être lu : %1</translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>%n damaged catalogue entries skipped: %1</source>
        <translation>
            <numerusform>%n entrée de catalogue endommagée ignorée : %1</numerusform>
            <numerusform>%n entrées de catalogue endommagées ignorées : %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+70"/>
        <location line="+67"/>
        <source>approved</source>
        <translation>approuvé</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>submitted</source>
        <translation>soumis</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>sent back</source>
        <translation>renvoyé</translation>
    </message>
    <message>
        <location line="-66"/>
        <source>not reviewed</source>
        <translation>non relu</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 of %2 studies shown: search to narrow them</source>
        <translation>%1 études sur %2 affichées : recherchez pour les restreindre</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n studies</source>
        <translation>
            <numerusform>%n étude</numerusform>
            <numerusform>%n études</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Reading %1 from the share...</source>
        <translation>Lecture de %1 depuis le partage...</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>no single grid</source>
        <translation>pas de grille unique</translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>%1  %2  %3  (%4, %n file(s))</source>
        <translation>
            <numerusform>%1  %2  %3  (%4, %n fichier)</numerusform>
            <numerusform>%1  %2  %3  (%4, %n fichiers)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+6"/>
        <source>(the image only)</source>
        <translation>(l’image seule)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(on another series)</source>
        <translation>(sur une autre série)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>RT Structure Set: %1  %2</source>
        <translation>RT Structure Set : %1  %2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Being edited now: %1</source>
        <translation>En cours d’édition : %1</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n series still being imported (not listed)</source>
        <translation>
            <numerusform>%n série encore en cours d’import (non listée)</numerusform>
            <numerusform>%n séries encore en cours d’import (non listées)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No image series in this study (a share written before studies held images?)</source>
        <translation>Aucune série d’images dans cette étude (un partage écrit avant que les études ne contiennent des images ?)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Skipped: %1</source>
        <translation>Ignoré : %1</translation>
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
        <translation>n° d’accès %1</translation>
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
        <translation>n° %1</translation>
    </message>
    <message numerus="yes">
        <location line="+79"/>
        <source>Statistics of %n label(s) written to %1</source>
        <translation>
            <numerusform>Statistiques de %n étiquette écrites dans %1</numerusform>
            <numerusform>Statistiques de %n étiquettes écrites dans %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>Un SEG DICOM référence la série DICOM sur laquelle il a été dessiné&#xa0;: ouvrez l’étude depuis son dossier DICOM</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>DICOM SEG written to %1</source>
        <translation>SEG DICOM écrit dans %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG written to %1, measurement report to %2</source>
        <translation>SEG DICOM écrit dans %1, rapport de mesures dans %2</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>An RT Structure Set references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>Un RT Structure Set référence la série DICOM sur laquelle il a été dessiné : ouvrez l&apos;étude depuis son dossier DICOM</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>RT Structure Set written to %1: %2 ROIs, %3 contours</source>
        <translation>RT Structure Set écrit dans %1 : %2 ROI, %3 contours</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Cannot write the measurement report %1: a folder of that name is there; nothing was written</source>
        <translation>Impossible d’écrire le rapport de mesures %1 : un dossier de ce nom s’y trouve ; rien n’a été écrit</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The measurement report %1 already exists; nothing was written (choose another name for the SEG, or allow replacing the report)</source>
        <translation>Le rapport de mesures %1 existe déjà ; rien n’a été écrit (choisissez un autre nom pour le SEG ou autorisez le remplacement du rapport)</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Report written to %1</source>
        <translation>Rapport écrit dans %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A report on the share describes a saved revision: save the labels to the share first</source>
        <translation>Un rapport sur le partage décrit une révision enregistrée : enregistrez d&apos;abord les étiquettes sur le partage</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cannot make a temporary folder for the report: %1</source>
        <translation>Impossible de créer un dossier temporaire pour le rapport : %1</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Publishing the report to the share</source>
        <translation>Publication du rapport sur le partage</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cancelled</source>
        <translation>Annulé</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Report %1 of revision %2 published on the share: %3</source>
        <translation>Rapport %1 de la révision %2 publié sur le partage : %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (the audit record was not written: %1)</source>
        <translation> (l&apos;entrée d&apos;audit n&apos;a pas été écrite : %1)</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Not enough memory to mesh the label surfaces for export</source>
        <translation>Mémoire insuffisante pour mailler les surfaces des labels à exporter</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No label surfaces to export: the map holds no labels</source>
        <translation>Aucune surface de label à exporter : la carte ne contient aucun label</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>%n surface file(s) written to %1</source>
        <translation>
            <numerusform>%n fichier de surface écrit dans %1</numerusform>
            <numerusform>%n fichiers de surface écrits dans %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/reports/study_exports_menu.cpp" line="+42"/>
        <source>Label &amp;Statistics (CSV, JSON)...</source>
        <translation>&amp;Statistiques des étiquettes (CSV, JSON)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+5"/>
        <location line="+16"/>
        <source>Export Label Statistics</source>
        <translation>Exporter les statistiques des étiquettes</translation>
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
        <translation>Statistiques, &amp;anonymisées...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label Statistics of a Slice &amp;Range...</source>
        <translation>Statistiques des étiquettes d&apos;une &amp;plage de coupes...</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&amp;PDF Report...</source>
        <translation>Rapport &amp;PDF...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export PDF Report</source>
        <translation>Exporter le rapport PDF</translation>
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
        <translation>Rapport PDF, anonymisé...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM S&amp;EG...</source>
        <translation>S&amp;EG DICOM...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export DICOM SEG</source>
        <translation>Exporter un SEG DICOM</translation>
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
        <translation>SEG DICOM, anonymisé...</translation>
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
        <translation>Exporter un RT Structure Set</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>RT Structure Set, De-identified...</source>
        <translation>RT Structure Set, désidentifié...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export DICOM SEG and Measurement Report (the report is written beside it as NAME_sr.dcm)</source>
        <translation>Exporter le DICOM SEG et le rapport de mesures (le rapport est écrit à côté sous le nom NOM_sr.dcm)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Replace Measurement Report</source>
        <translation>Remplacer le rapport de mesures</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The measurement report %1 already exists. Replace it?</source>
        <translation>Le rapport de mesures %1 existe déjà. Le remplacer ?</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>DICOM SEG and &amp;Measurement Report (SR)...</source>
        <translation>SEG DICOM et rapport de &amp;mesures (SR)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG and Measurement Report, De-identified...</source>
        <translation>SEG DICOM et rapport de mesures, anonymisés...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Write DICOM SEG as &amp;Label Map (keeps label ids)</source>
        <translation>Écrire le SEG DICOM en carte d&apos;é&amp;tiquettes (garde les identifiants)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Publish Report to Share</source>
        <translation>Publier le rapport sur le partage</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Message (optional):</source>
        <translation>Message (facultatif) :</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Publish Report to S&amp;hare...</source>
        <translation>Publier le rapport sur le &amp;partage...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Publish Report to Share, De-identified...</source>
        <translation>Publier le rapport sur le partage, anonymisé...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Label Su&amp;rfaces (STL)...</source>
        <translation>S&amp;urfaces des étiquettes (STL)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Export Surfaces to Folder</source>
        <translation>Exporter les surfaces dans un dossier</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Label Surfaces (&amp;OBJ)...</source>
        <translation>Surfaces des étiquettes (&amp;OBJ)...</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyLoader</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="-335"/>
        <source>Cancelled</source>
        <translation>Annulé</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+27"/>
        <location line="+23"/>
        <location line="+64"/>
        <location line="+121"/>
        <source>Loading %1</source>
        <translation>Chargement de %1</translation>
    </message>
    <message>
        <location line="-106"/>
        <source>Opening the structure set %1 from the share</source>
        <translation>Ouverture du structure set %1 depuis le partage</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Indexing %1</source>
        <translation>Indexation de %1</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Loading %1 / %2 r%3</source>
        <translation>Chargement de %1 / %2 r%3</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>Opening %1 from the share</source>
        <translation>Ouverture de %1 depuis le partage</translation>
    </message>
    <message>
        <location line="+78"/>
        <source>  - incomplete: %1 unreadable file(s)</source>
        <translation>  - incomplète : %1 fichier(s) illisible(s)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>  - warning: %1</source>
        <translation>  - avertissement&#xa0;: %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+25"/>
        <location line="+16"/>
        <location line="+7"/>
        <source>Open DICOM Series</source>
        <translation>Ouvrir une série DICOM</translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Series:</source>
        <translation>Série&#xa0;:</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Series %1 is incomplete and was not opened. These files of it or beside it cannot be read:
%2</source>
        <translation>La série %1 est incomplète et n’a pas été ouverte. Ces fichiers de la série ou placés à côté sont illisibles :
%2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Series %1 is incomplete. These files of it or beside it cannot be read:
%2

Load the readable files anyway? The slices of the unreadable ones will be missing.</source>
        <translation>La série %1 est incomplète. Ces fichiers de la série ou voisins sont illisibles :
%2

Charger quand même les fichiers lisibles ? Les coupes des fichiers illisibles manqueront.</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>This series has problems:
%1</source>
        <translation>Cette série présente des problèmes&#xa0;:
%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>

Load it anyway?</source>
        <translation>

La charger quand même&#xa0;?</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Loading series %1</source>
        <translation>Chargement de la série %1</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Opened %1</source>
        <translation>%1 ouvert</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+183"/>
        <source>The labels&apos; table could not be read, their ids are unnamed: %1</source>
        <translation>La table des étiquettes n’a pas pu être lue, leurs identifiants restent sans nom : %1</translation>
    </message>
    <message>
        <location line="-180"/>
        <source>Opened %1; its labels are named by the table last used (%2)</source>
        <translation>%1 ouvert ; ses labels sont nommés par la dernière table utilisée (%2)</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>Opened %1 from the share</source>
        <translation>%1 ouvert depuis le partage</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 x %2 x %3 voxels, spacing %4 x %5 x %6 mm, origin (%7, %8, %9) mm LPS, axes %10</source>
        <translation>%1 x %2 x %3 voxels, espacement %4 x %5 x %6 mm, origine (%7, %8, %9) mm LPS, axes %10</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 is on another grid than the image.
Label map: %2
Image: %3</source>
        <translation>%1 est sur une autre grille que l’image.
Carte d’étiquettes : %2
Image : %3</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It does not cover the image&apos;s space and was not opened.</source>
        <translation>Elle ne couvre pas l’espace de l’image et n’a pas été ouverte.</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It was not opened.</source>
        <translation>Elle n’a pas été ouverte.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Label Map on Another Grid</source>
        <translation>Carte d’étiquettes sur une autre grille</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>It covers the image&apos;s space. Resample it onto the image&apos;s grid (nearest neighbour)? Undo takes the resampled labels back.</source>
        <translation>Elle couvre l’espace de l’image. La rééchantillonner sur la grille de l’image (plus proche voisin) ? Annuler retire les étiquettes rééchantillonnées.</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Resampling %1</source>
        <translation>Rééchantillonnage de %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: %2</source>
        <translation>%1 : %2</translation>
    </message>
    <message numerus="yes">
        <location line="+59"/>
        <source>%1 (%n voxel(s))</source>
        <translation>
            <numerusform>%1 (%n voxel)</numerusform>
            <numerusform>%1 (%n voxels)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>Labels from %1; %n value(s) the table does not name: %2</source>
        <translation>
            <numerusform>Étiquettes de %1 ; %n valeur que la table ne nomme pas : %2</numerusform>
            <numerusform>Étiquettes de %1 ; %n valeurs que la table ne nomme pas : %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Labels from %1, named by the table last used (%2)</source>
        <translation>Labels de %1, nommés par la dernière table utilisée (%2)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Labels from %1</source>
        <translation>Étiquettes chargées depuis %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1: %2 voxels belonged to more than one segment; the higher segment number was kept</source>
        <translation>%1&#xa0;: %2 voxels appartenaient à plusieurs segments&#xa0;; le numéro de segment le plus élevé a été conservé</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SurfaceBuilder</name>
    <message>
        <location filename="../app/gui/views/surface_builder.cpp" line="+102"/>
        <location line="+56"/>
        <source>building surfaces...</source>
        <translation>construction des surfaces...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>not enough memory to rebuild the surfaces</source>
        <translation>pas assez de mémoire pour reconstruire les surfaces</translation>
    </message>
    <message numerus="yes">
        <location line="-66"/>
        <source>%n surface(s)</source>
        <translation>
            <numerusform>%n surface</numerusform>
            <numerusform>%n surfaces</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>%n surface(s), reduced detail</source>
        <translation>
            <numerusform>%n surface, détail réduit</numerusform>
            <numerusform>%n surfaces, détail réduit</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser, as the preferences ask (File &gt; Preferences &gt; 3D surface detail). Exported surface files are meshed at full detail.</source>
        <translation>Les grands labels sont maillés plus grossièrement, comme le demandent les préférences (Fichier &gt; Préférences &gt; Détail des surfaces 3D). Les fichiers de surfaces exportés sont maillés au détail complet.</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser: the OpenGL renderer (%1) draws on the CPU, where full detail costs memory and slows every frame. File &gt; Preferences &gt; 3D surface detail can ask for full detail; exported surface files are always full detail.</source>
        <translation>Les grands labels sont maillés plus grossièrement : le moteur de rendu OpenGL (%1) dessine sur le processeur, où le détail complet coûte de la mémoire et ralentit chaque image. Fichier &gt; Préférences &gt; Détail des surfaces 3D permet de demander le détail complet ; les fichiers de surfaces exportés sont toujours au détail complet.</translation>
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
        <translation>Entraînement : %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Training %1 after %2 iterations; best validation Dice %3</source>
        <translation>Entraînement %1 après %2 itérations ; meilleur Dice de validation %3</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>ended</source>
        <translation>fini</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>done</source>
        <translation>terminé</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped (checkpoint saved)</source>
        <translation>arrêté (point de contrôle enregistré)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped early</source>
        <translation>arrêté tôt</translation>
    </message>
    <message>
        <location line="-39"/>
        <location line="+31"/>
        <location line="+318"/>
        <source>none</source>
        <translation>aucun</translation>
    </message>
    <message>
        <location line="-346"/>
        <source>No share is open, so the model was not published: its checkpoints are in %1 (open or create a share and train again to publish it)</source>
        <translation>Aucun partage n’est ouvert, le modèle n’a donc pas été publié : ses points de contrôle sont dans %1 (ouvrez ou créez un partage et entraînez à nouveau pour le publier)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Training failed: %1</source>
        <translation>Échec de l&apos;entraînement : %1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Following the run %1 started earlier</source>
        <translation>Suivi de l&apos;entraînement %1 lancé plus tôt</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Last run %1: %2 after %3 iterations; best validation Dice %4</source>
        <translation>Dernière exécution %1 : %2 après %3 itérations ; meilleur Dice de validation %4</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Data:</source>
        <translation>Données :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A case list file (below)</source>
        <translation>Une liste de cas (ci-dessous)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cases.json: image and label files (or choose a dataset of the share above)</source>
        <translation>cases.json : fichiers d&apos;images et d&apos;étiquettes (ou choisir un jeu de données du partage ci-dessus)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model:</source>
        <translation>Modèle :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New atlas network (SegResNetDS)</source>
        <translation>Nouveau réseau d&apos;atlas (SegResNetDS)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fine-tune VISTA-3D</source>
        <translation>Affiner VISTA-3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VISTA-3D checkpoint to fine-tune: a file (model.pt) or share:ROOT#MODEL</source>
        <translation>Checkpoint VISTA-3D à affiner : un fichier (model.pt) ou share:ROOT#MODEL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>Nom&#xa0;:</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the model&apos;s name on the share (checkpoints/&lt;name&gt;/)</source>
        <translation>le nom du modèle sur le partage (checkpoints/&lt;name&gt;/)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>label table (names; optional)</source>
        <translation>table d&apos;étiquettes (noms ; facultatif)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Iterations:</source>
        <translation>Itérations :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate every:</source>
        <translation>Valider tous les :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device:</source>
        <translation>Périphérique :</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Advanced:</source>
        <translation>Avancé :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>more delineate-train options, e.g. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</source>
        <translation>autres options de delineate-train, p. ex. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</translation>
    </message>
    <message>
        <location line="+308"/>
        <source>Stopping...</source>
        <translation>Arrêt...</translation>
    </message>
    <message>
        <location line="-306"/>
        <source>Start</source>
        <translation>Démarrer</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate the weights reached, save them as a checkpoint and end the run</source>
        <translation>Valider les poids atteints, les enregistrer comme point de contrôle et terminer l’entraînement</translation>
    </message>
    <message>
        <location line="+93"/>
        <source>No share is open: the model stays in its run folder, unpublished</source>
        <translation>Aucun partage n’est ouvert : le modèle reste dans le dossier de son entraînement, non publié</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Stopping: validating and saving a checkpoint...</source>
        <translation>Arrêt : validation et enregistrement d’un point de contrôle...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>On the CPU the patch defaults to 64x64x64 voxels: smaller patches make training on the CPU feasible (about 0.6 iterations/s on a mouse atlas, against 0.07-0.18 at 96x96x80).</source>
        <translation>Sur le CPU, le patch vaut par défaut 64x64x64 voxels : des patchs plus petits rendent l’entraînement sur le CPU faisable (environ 0,6 itération/s sur un atlas de souris, contre 0,07-0,18 à 96x96x80).</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>On a GPU the patch defaults to the cases&apos; size, up to 128 voxels a side, and the network to 32 filters.</source>
        <translation>Sur un GPU, le patch prend par défaut la taille des cas, jusqu’à 128 voxels de côté, et le réseau 32 filtres.</translation>
    </message>
    <message>
        <location line="+194"/>
        <source>Stop</source>
        <translation>Arrêter</translation>
    </message>
    <message>
        <location line="-304"/>
        <source>Resume</source>
        <translation>Reprendre</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Time budget:</source>
        <translation>Budget de temps :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. 55m or 1h30m: the iterations that fit it (empty: the iterations above)</source>
        <translation>p. ex. 55m ou 1h30m : les itérations qui y tiennent (vide : les itérations ci-dessus)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run on:</source>
        <translation>Exécuter sur :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This computer</source>
        <translation>Cet ordinateur</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm cluster</source>
        <translation>Grappe Slurm</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cluster folder:</source>
        <translation>Dossier de la grappe :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a folder every cluster node mounts (the run&apos;s checkpoints and log go there)</source>
        <translation>un dossier monté sur chaque nœud de la grappe (les points de contrôle et le journal de l&apos;entraînement y vont)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm:</source>
        <translation>Slurm :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node: one rank each)</source>
        <translation>p. ex. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node : un rang chacun)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Continue the run from its newest checkpoint</source>
        <translation>Reprendre l&apos;entraînement depuis son dernier point de contrôle</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Models...</source>
        <translation>Modèles...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models: metrics, datasets, comparison; choose the AI engine</source>
        <translation>Les modèles entraînés du partage : métriques, jeux de données, comparaison ; choisir le moteur IA</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next Case</source>
        <translation>Cas suivant</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank the share&apos;s studies without approved labels by this model&apos;s uncertainty and open the most uncertain one</source>
        <translation>Classer les études du partage sans labels approuvés selon l&apos;incertitude de ce modèle et ouvrir la plus incertaine</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study</source>
        <translation>Étude</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Uncertainty</source>
        <translation>Incertitude</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Labels</source>
        <translation>Labels</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation>Perte</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation Dice</source>
        <translation>Dice de validation</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Structure</source>
        <translation>Structure</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Dice</source>
        <translation>Dice</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Choose a dataset of the share or a case list file</source>
        <translation>Choisir un jeu de données du partage ou une liste de cas</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>No share is open to take the dataset from</source>
        <translation>Aucun partage ouvert d&apos;où prendre le jeu de données</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Fine-tuning VISTA-3D starts from a checkpoint: give its file</source>
        <translation>L&apos;affinage de VISTA-3D part d&apos;un point de contrôle : indiquez son fichier</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Choose a folder every cluster node mounts (an absolute path) for a Slurm run</source>
        <translation>Choisissez un dossier monté sur chaque nœud de la grappe (chemin absolu) pour un entraînement Slurm</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Training could not start: %1</source>
        <translation>L&apos;entraînement n&apos;a pas pu démarrer : %1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Training %1: resuming from its newest checkpoint, reading the cases...</source>
        <translation>Entraînement %1 : reprise depuis son point de contrôle le plus récent, lecture des cas...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training %1: reading the cases...</source>
        <translation>Entraînement %1 : lecture des cas...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Training %1: submitted to Slurm as job %2; it starts when the cluster runs it</source>
        <translation>Entraînement %1 : soumis à Slurm comme tâche %2 ; il commence quand la grappe l&apos;exécute</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>it %1/%2  loss %3  %4 it/s  ETA %5  data wait %6%  %7</source>
        <translation>it. %1/%2  perte %3  %4 it./s  reste %5  attente des données %6%  %7</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>  validation Dice %1</source>
        <translation>  Dice de validation %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  memory %1 GB</source>
        <translation>  mémoire %1 Go</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  GPU memory in use %1 GB</source>
        <translation>  mémoire GPU utilisée %1 Go</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  last %1</source>
        <translation>  dernier %1</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>No share is open to rank its studies</source>
        <translation>Aucun partage ouvert dont classer les études</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Name the model that ranks the studies (Name:)</source>
        <translation>Nommez le modèle qui classe les études (Nom :)</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>cannot start %1: %2</source>
        <translation>impossible de démarrer %1 : %2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Ranking the studies without approved labels by %1...</source>
        <translation>Classement des études sans labels approuvés par %1...</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Ranking 1 study on %1...</source>
        <translation>Classement d&apos;1 étude sur %1...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranking %1 studies on %2...</source>
        <translation>Classement de %1 études sur %2...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Ranked %1 of %2: %3 (uncertainty %4)</source>
        <translation>%1 sur %2 classées : %3 (incertitude %4)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not ranked: %1: %2</source>
        <translation>Non classée : %1 : %2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>the ranking was stopped</source>
        <translation>le classement a été arrêté</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>delineate-train ended without a ranking</source>
        <translation>delineate-train s&apos;est terminé sans classement</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Ranking failed: %1</source>
        <translation>Échec du classement : %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Every study of the share with an image has approved labels: nothing to rank</source>
        <translation>Chaque étude du partage avec une image a des labels approuvés : rien à classer</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Next case: %1 (uncertainty %2), the only study to label</source>
        <translation>Cas suivant : %1 (incertitude %2), la seule étude à annoter</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next case: %1 (uncertainty %2), the most uncertain of %3 studies</source>
        <translation>Cas suivant : %1 (incertitude %2), la plus incertaine de %3 études</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::TrainingRun</name>
    <message>
        <location filename="../app/gui/training/training_run.cpp" line="+137"/>
        <source>cannot start %1: %2</source>
        <translation>impossible de démarrer %1 : %2</translation>
    </message>
    <message>
        <location line="+28"/>
        <location line="+11"/>
        <source>cannot submit to Slurm: %1</source>
        <translation>impossible de soumettre à Slurm : %1</translation>
    </message>
    <message>
        <location line="+70"/>
        <source>ended without a result (see %1)</source>
        <translation>terminé sans résultat (voir %1)</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>scancel: %1</source>
        <translation>scancel : %1</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>delineate-train ended without a result (see %1)</source>
        <translation>delineate-train s&apos;est terminé sans résultat (voir %1)</translation>
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
        <translation>Aucune étude n&apos;est ouverte. Ouvrez-en une :</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>You can also drop an image file (NIfTI, NRRD, MetaImage), a DICOM file or a DICOM folder onto this window, or open one from your file manager.</source>
        <translation>Vous pouvez aussi déposer un fichier image (NIfTI, NRRD, MetaImage), un fichier DICOM ou un dossier DICOM sur cette fenêtre, ou l&apos;ouvrir depuis votre gestionnaire de fichiers.</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&lt;b&gt;Models.&lt;/b&gt; Automatic labels work without any download: the classic engine segments body, lungs, airway and bone on the CPU, and refines any label by clicks. VISTA-3D (127 classes, best on a GPU) needs its checkpoint, which is not installed with Delineate (for its licence and its size): AI &amp;gt; Get Models says where to get it, downloads or registers it and makes it the engine&apos;s (VISTA-3D also needs the delineate-torch package). You can also train a model on your own labels in the Training dock.</source>
        <translation>&lt;b&gt;Modèles.&lt;/b&gt; Les étiquettes automatiques fonctionnent sans téléchargement : le moteur classique segmente le corps, les poumons, les voies aériennes et les os sur le CPU, et affine toute étiquette par clics. VISTA-3D (127 classes, de préférence sur un GPU) a besoin de son checkpoint, qui n&apos;est pas installé avec Delineate (pour sa licence et sa taille) : IA &amp;gt; Obtenir des modèles indique où l&apos;obtenir, le télécharge ou l&apos;enregistre et en fait celui du moteur (VISTA-3D demande aussi le paquet delineate-torch). Vous pouvez aussi entraîner un modèle sur vos propres étiquettes dans le dock Entraînement.</translation>
    </message>
</context>
</TS>
