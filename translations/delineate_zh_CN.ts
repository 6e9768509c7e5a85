<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AuthorPrompt</name>
    <message>
        <location filename="../app/gui/base/author_name.cpp" line="+22"/>
        <source>No author name: set yours in File &gt; Preferences (it is stored with every revision)</source>
        <translation>没有作者姓名：请在 文件 &gt; 首选项 中设置（它随每个修订一起保存）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Author Name</source>
        <translation>作者姓名</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Your name, stored with every revision you save, every review step and every model you train (File &gt; Preferences changes it):</source>
        <translation>您的姓名，随您保存的每个修订、每个审阅步骤和您训练的每个模型一起存储（文件 &gt; 首选项中可更改）：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No author name given: nothing was saved or recorded</source>
        <translation>未提供作者姓名：未保存或记录任何内容</translation>
    </message>
</context>
<context>
    <name>EditStep</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+34"/>
        <source>Paint</source>
        <translation>绘制</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Erase</source>
        <translation>擦除</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill</source>
        <translation>泛洪填充</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>保留最大孤岛</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove small islands</source>
        <translation>移除小孤岛</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>填充空洞</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>平滑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>层间插值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices over other labels</source>
        <translation>覆盖其他标签插值切片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open label map</source>
        <translation>打开标签图</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment everything</source>
        <translation>全部分割</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>分割所选类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept AI object</source>
        <translation>接受 AI 对象</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recovered edits</source>
        <translation>已恢复的编辑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add label</source>
        <translation>添加标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename label</source>
        <translation>重命名标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lock label</source>
        <translation>锁定标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour label</source>
        <translation>更改标签颜色</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import label table</source>
        <translation>导入标签表</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label names</source>
        <translation>标签名称</translation>
    </message>
</context>
<context>
    <name>QObject</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="+125"/>
        <source>out of memory</source>
        <translation>内存不足</translation>
    </message>
    <message>
        <location line="+72"/>
        <location line="+25"/>
        <location line="+10"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>%1 voxels belonged to more than one ROI; each went to the smallest ROI holding it</source>
        <translation>%1 个体素属于多个 ROI；每个体素归入包含它的最小 ROI</translation>
    </message>
    <message>
        <location line="+61"/>
        <source>Series %1 of %2 holds no RT Structure Set</source>
        <translation>%2 的序列 %1 不含 RT 结构集</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Series %1 of %2 holds %3 RT Structure Sets; open one with File &gt; Open RT Structure Set from %4</source>
        <translation>%2 的序列 %1 含有 %3 个 RT 结构集；请用 文件 &gt; 打开 RT 结构集 从 %4 打开其中一个</translation>
    </message>
    <message>
        <location line="+63"/>
        <source>%1: no image series found</source>
        <translation>%1：未找到图像序列</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>%1 / %2 on %3 holds no revision</source>
        <translation>%3 上的 %1 / %2 没有任何修订</translation>
    </message>
    <message>
        <location line="+10"/>
        <location line="+75"/>
        <source>%1 revision %2</source>
        <translation>%1 修订版 %2</translation>
    </message>
    <message>
        <location line="-28"/>
        <source>Series %1 of %2 is not one regular image (split, irregular or incomplete); open its verified copy with File &gt; Open DICOM Folder: %3</source>
        <translation>%2 的序列 %1 不是单一的规则图像（被拆分、不规则或不完整）；请通过“文件 &gt; 打开 DICOM 文件夹”打开其已校验的副本：%3</translation>
    </message>
</context>
<context>
    <name>Shortcuts</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="+202"/>
        <source>Move the crosshair</source>
        <translation>移动十字线</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click or drag (Navigate)</source>
        <translation>左键单击或拖动（导航）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint / erase / fill</source>
        <translation>绘制 / 擦除 / 填充</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag (Brush, Eraser, Fill)</source>
        <translation>左键拖动（画笔、橡皮擦、填充）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush size</source>
        <translation>画笔大小</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>[ and ], or Shift + wheel</source>
        <translation>[ 和 ]，或 Shift + 滚轮</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Positive AI point</source>
        <translation>AI 正向点</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left click (click mode)</source>
        <translation>左键单击（点击模式）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Negative AI point</source>
        <translation>AI 负向点</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Shift + left click or right click (click mode)</source>
        <translation>Shift + 左键单击或右键单击（点击模式）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI box, scribble or lasso</source>
        <translation>AI 框、涂画或套索</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Left drag; negative: Shift + left drag or right drag (its tool chosen)</source>
        <translation>左键拖动；阴性：Shift + 左键拖动或右键拖动（已选择其工具）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Scroll slices</source>
        <translation>翻动层面</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Wheel, Up/Down, PageUp/PageDown</source>
        <translation>滚轮、Up/Down、PageUp/PageDown</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Zoom</source>
        <translation>缩放</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Ctrl + wheel, + and -</source>
        <translation>Ctrl + 滚轮、+ 和 -</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Pan</source>
        <translation>平移</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Middle drag or Shift + left drag</source>
        <translation>中键拖动或 Shift + 左键拖动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Window / level</source>
        <translation>窗宽 / 窗位</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Right drag (not in click mode)</source>
        <translation>右键拖动（点击模式下除外）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>One view alone and back</source>
        <translation>单独显示一个视图 / 恢复</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click</source>
        <translation>双击</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reset the view</source>
        <translation>重置视图</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>R</source>
        <translation>R</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rotate the 3D view</source>
        <translation>旋转 3D 视图</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Left drag in 3D</source>
        <translation>在 3D 视图中左键拖动</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rename a label</source>
        <translation>重命名标签</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its name</source>
        <translation>双击其名称</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Recolour a label</source>
        <translation>更改标签颜色</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Double click its id</source>
        <translation>双击其 ID</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Keyboard Shortcuts and Mouse</source>
        <translation>键盘快捷键和鼠标</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Action</source>
        <translation>操作</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Keys or mouse</source>
        <translation>按键或鼠标</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::AiPanel</name>
    <message>
        <location filename="../app/gui/ai/ai_panel.cpp" line="+216"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The engine&apos;s model: the one set in the preferences, or a trained model from the share&apos;s checkpoints (its newest revision)</source>
        <translation>引擎的模型：首选项中设置的模型，或共享存储检查点中的已训练模型（其最新修订版）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>List the share&apos;s models again</source>
        <translation>重新列出共享存储中的模型</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+239"/>
        <source>From the preferences</source>
        <translation>来自首选项</translation>
    </message>
    <message>
        <location line="-238"/>
        <source>Segment everything</source>
        <translation>全部分割</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Classes:</source>
        <translation>类别：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment selected classes</source>
        <translation>分割所选类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Click mode (A)</source>
        <translation>点击模式 (A)</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Accept</source>
        <translation>接受</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Write the object into the label chosen under &quot;Accept into&quot; (Return)</source>
        <translation>将对象写入“接受到”中选择的标签（回车）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Accept into:</source>
        <translation>接受到：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The label the accepted object is written into: a new label unless you choose one here or in the labels list</source>
        <translation>接受的对象写入的标签：除非在此处或标签列表中选择，否则为新标签</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Discard</source>
        <translation>放弃</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drop the object (Escape)</source>
        <translation>放弃该对象 (Escape)</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+391"/>
        <source>AI click mode</source>
        <translation>AI 点击模式</translation>
    </message>
    <message>
        <location line="-391"/>
        <source>Accept AI object</source>
        <translation>接受 AI 对象</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Discard AI object</source>
        <translation>放弃 AI 对象</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Engine: starting...</source>
        <translation>引擎：正在启动...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Engine: none</source>
        <translation>引擎：无</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Engine: %1 on %2</source>
        <translation>引擎：%1，运行于 %2</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>classic engine: no VISTA-3D checkpoint is configured</source>
        <translation>经典引擎：未配置 VISTA-3D 检查点</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>classic engine: no CUDA device for VISTA-3D (choose the CPU in the preferences to run it there, at minutes per window)</source>
        <translation>经典引擎：没有可供 VISTA-3D 使用的 CUDA 设备（可在首选项中选择 CPU 运行，每个窗口需数分钟）</translation>
    </message>
    <message numerus="yes">
        <location line="+3"/>
        <source>atlas network %1 (%n classes) on %2</source>
        <translation>
            <numerusform>图谱网络 %1（%n 个类别），运行于 %2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+3"/>
        <source>VISTA-3D on %1</source>
        <translation>VISTA-3D，运行于 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>, asked for (the full model takes minutes per 128^3 window on a CPU)</source>
        <translation>，按要求（完整模型在 CPU 上每个 128^3 窗口需数分钟）</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>, fine-tuned: %n classes by the labels it was trained with</source>
        <translation>
            <numerusform>，已微调：%n 个类别，使用其训练时的标签</numerusform>
        </translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Fit unknown: this model&apos;s sidecar records nothing of its training images (a checkpoint from before they were recorded); check its results on this study with care.</source>
        <translation>适配性未知：此模型的附属文件未记录其训练图像（记录该信息之前的检查点）；请仔细检查它在此研究上的结果。</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 × %2 × %3 mm</source>
        <translation>%1 × %2 × %3 mm</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>image</source>
        <translation>图像</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>this %1 is %2 mm, %3 × %4 × %5 voxels (%6)</source>
        <translation>此 %1 为 %2 mm，%3 × %4 × %5 体素（%6）</translation>
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
            <numerusform>%n 幅图像</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n %1 image(s)</source>
        <translation>
            <numerusform>%n 幅 %1 图像</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model trained on %1 at %2 mm, field of view up to %3; %4</source>
        <translation>模型在 %1 上训练，体素 %2 mm，视野最大 %3；%4</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>field of view %1× larger</source>
        <translation>视野大 %1 倍</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>field of view %1× smaller</source>
        <translation>视野小 %1 倍</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× coarser</source>
        <translation>体素粗 %1 倍</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>voxels %1× finer</source>
        <translation>体素细 %1 倍</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>another modality</source>
        <translation>另一种模态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>no CT intensities (Hounsfield units)</source>
        <translation>没有 CT 强度（亨氏单位）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>resampled to the model&apos;s grid it would be %1 billion voxels, too large to segment</source>
        <translation>重采样到模型网格后将有 %1 十亿个体素，过大，无法分割</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The model does not fit this study: %1: %2</source>
        <translation>该模型不适合此研究：%1：%2</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>Model Does Not Fit the Study</source>
        <translation>模型不适合此研究</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Its result is likely to be wrong. Run it anyway?</source>
        <translation>其结果很可能是错误的。仍要运行吗？</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Run Anyway</source>
        <translation>仍然运行</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>The engine is busy: choose the model when it is done</source>
        <translation>引擎正忙：请在其完成后再选择模型</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>Share models: %1</source>
        <translation>共享存储模型：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 (being trained by %2)</source>
        <translation>%1（正由 %2 训练）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1 r%2</source>
        <translation>%1 r%2</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>1 class</source>
        <translation>1 个类别</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>%1 classes</source>
        <translation>%1 个类别</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dice %1</source>
        <translation>Dice %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>being trained by %1</source>
        <translation>正由 %1 训练</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1, saved by %2 at %3</source>
        <translation>%1，由 %2 于 %3 保存</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>AI engine: %1</source>
        <translation>AI 引擎：%1</translation>
    </message>
    <message>
        <location line="+238"/>
        <location line="+53"/>
        <source>AI prompt: %1</source>
        <translation>AI 提示：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+83"/>
        <source>%n prompt(s), object %1 voxels; engine %2 ms, display %3 ms</source>
        <translation>
            <numerusform>%n 个提示，对象 %1 个体素；引擎 %2 毫秒，显示 %3 毫秒</numerusform>
        </translation>
    </message>
    <message>
        <location line="-604"/>
        <source>classic engine (the configured one failed)</source>
        <translation>经典引擎（所配置的引擎启动失败）</translation>
    </message>
    <message>
        <location line="+283"/>
        <source>Tick the classes to segment first</source>
        <translation>请先勾选要分割的类别</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="-219"/>
        <location line="+221"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="-384"/>
        <source>Prompt:</source>
        <translation>提示：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Point</source>
        <translation>点</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Box</source>
        <translation>框</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Scribble</source>
        <translation>涂画</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lasso</source>
        <translation>套索</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Click on the object (positive) or beside it (negative) (P)</source>
        <translation>点击对象（阳性）或其旁边（阴性）(P)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Drag a rectangle around the object in a slice: it bounds the object in that slice&apos;s two directions (X)</source>
        <translation>在切片中围绕对象拖出矩形：它在该切片的两个方向上限定对象 (X)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Paint a stroke over the object (positive) or over what is not (negative) (S)</source>
        <translation>在对象上（阳性）或非对象处（阴性）画一笔 (S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Draw a closed contour around part of the object in a slice; its inside is the object, or not (L)</source>
        <translation>在切片中围绕对象的一部分画闭合轮廓；其内部是对象，或不是 (L)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Left button: positive. Shift + left or right button: negative. A click gives a point; a drag gives a box, scribble or lasso.</source>
        <translation>左键：阳性。Shift + 左键或右键：阴性。单击得到一个点；拖动得到框、涂画或套索。</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Undo prompt</source>
        <translation>撤销提示</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove the last prompt (Backspace)</source>
        <translation>移除最后一个提示（退格键）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Remove last AI prompt</source>
        <translation>移除最后一个 AI 提示</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: point</source>
        <translation>AI 提示：点</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: box</source>
        <translation>AI 提示：框</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AI prompt: scribble</source>
        <translation>AI 提示：涂画</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>AI prompt: lasso</source>
        <translation>AI 提示：套索</translation>
    </message>
    <message>
        <location line="+364"/>
        <source>%1: the engine found nothing (every voxel is background)</source>
        <translation>%1：引擎未找到任何内容（所有体素均为背景）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>%1: %2 s</source>
        <translation>%1：%2 s</translation>
    </message>
    <message>
        <location line="+124"/>
        <source>model-guided: edits label %1</source>
        <translation>模型引导：编辑标签 %1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>classic engine (intensities): choose one of the model&apos;s labels to edit it model-guided</source>
        <translation>经典引擎（强度）：选择模型的一个标签以模型引导方式编辑它</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Wait for the study to finish loading</source>
        <translation>请等待检查加载完成</translation>
    </message>
    <message>
        <location line="+209"/>
        <source>New label</source>
        <translation>新标签</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1  (unnamed)</source>
        <translation>%1  (未命名)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Accept: every label id is in use</source>
        <translation>接受：所有标签 ID 均已使用</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label %1</source>
        <translation>标签 %1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Accept: %1</source>
        <translation>接受：%1</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Accept: there is no object to accept yet</source>
        <translation>接受：尚无可接受的对象</translation>
    </message>
    <message numerus="yes">
        <location line="+20"/>
        <source>Accepted: %n voxel(s) written to label %1</source>
        <translation>
            <numerusform>已接受：%n 个体素写入标签 %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::EditTools</name>
    <message>
        <location filename="../app/gui/editing/edit_tools.cpp" line="+158"/>
        <source>Navigate</source>
        <translation>导航</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush</source>
        <translation>画笔</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Eraser</source>
        <translation>橡皮擦</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Fill</source>
        <translation>填充</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Navigate: the crosshair, no editing (N)</source>
        <translation>导航：移动十字线，不进行编辑 (N)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Brush: paint the active label (B)</source>
        <translation>画笔：绘制当前标签 (B)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Eraser: paint background (E)</source>
        <translation>橡皮擦：绘制背景 (E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Flood fill: the connected region under the click (F)</source>
        <translation>泛洪填充：填充单击处的连通区域 (F)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Larger brush</source>
        <translation>增大画笔</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smaller brush</source>
        <translation>减小画笔</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brush radius</source>
        <translation>画笔半径</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>[ and ] or Shift + wheel over a view</source>
        <translation>[ 和 ]，或在视图上 Shift + 滚轮</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D brush (sphere)</source>
        <translation>3D 画笔（球形）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>3D flood fill</source>
        <translation>3D 泛洪填充</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Protect other labels</source>
        <translation>保护其他标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The brush paints only over background; the eraser removes only the active label</source>
        <translation>画笔只在背景上绘制；橡皮擦只擦除当前标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Only intensities in range</source>
        <translation>仅限范围内的强度</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Active label</source>
        <translation>当前标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Keep largest island</source>
        <translation>保留最大孤岛</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Remove islands under (voxels)</source>
        <translation>移除孤岛，体素数小于</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fill holes</source>
        <translation>填充空洞</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Smooth</source>
        <translation>平滑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate slices</source>
        <translation>层间插值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Axial</source>
        <translation>轴位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>冠状位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>矢状位</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Brush radius %1 mm</source>
        <translation>画笔半径 %1 mm</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Choose or add a label to paint with</source>
        <translation>请选择或添加要绘制的标签</translation>
    </message>
    <message>
        <location line="+58"/>
        <source>Choose or add a label to fill with</source>
        <translation>请选择或添加要填充的标签</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Choose a label first</source>
        <translation>请先选择标签</translation>
    </message>
    <message>
        <location line="+9"/>
        <location line="+58"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <location line="-54"/>
        <source>%1: %n voxel(s) changed</source>
        <translation>
            <numerusform>%1：已更改 %n 个体素</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: nothing to change</source>
        <translation>%1：无需更改</translation>
    </message>
    <message>
        <location line="+35"/>
        <source>%1: every label id is in use</source>
        <translation>%1：所有标签 ID 均已使用</translation>
    </message>
    <message numerus="yes">
        <location line="+58"/>
        <source>Interpolate slices: %n voxel(s) between the slices belong to other labels and were left as they are (interpolation fills only unlabelled voxels)</source>
        <translation>
            <numerusform>插值切片：切片之间有 %n 个体素属于其他标签，已保持不变（插值只填充未标记的体素）</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Interpolate Slices</source>
        <translation>插值切片</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Interpolate over the other labels? Locked labels stay as they are; Undo takes it back in one step.</source>
        <translation>覆盖其他标签进行插值吗？锁定的标签保持不变；撤销可一步还原。</translation>
    </message>
    <message>
        <location line="+33"/>
        <source>Undone: %1</source>
        <translation>已撤销：%1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Redone: %1</source>
        <translation>已重做：%1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>&amp;Undo %1</source>
        <translation>撤销 %1(&amp;U)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Redo %1</source>
        <translation>重做 %1(&amp;R)</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::LabelPanel</name>
    <message>
        <location filename="../app/gui/editing/label_panel.cpp" line="+51"/>
        <source>Label tables (*.label *.txt *.ctbl *.csv *.tsv *.json);;All files (*)</source>
        <translation>标签表 (*.label *.txt *.ctbl *.csv *.tsv *.json);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Label %1</source>
        <translation>标签 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Add Label</source>
        <translation>添加标签</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Import Label Table</source>
        <translation>导入标签表</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Export Label Table</source>
        <translation>导出标签表</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Lock</source>
        <translation>锁定</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>体积</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Opacity</source>
        <translation>不透明度</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Add</source>
        <translation>添加</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Colour...</source>
        <translation>颜色...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Show all</source>
        <translation>全部显示</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Hide all</source>
        <translation>全部隐藏</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Import table...</source>
        <translation>导入表...</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Export table...</source>
        <translation>导出表...</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+107"/>
        <location line="+7"/>
        <source>label %1</source>
        <translation>标签 %1</translation>
    </message>
    <message>
        <location line="-109"/>
        <source>Unnamed: the labels&apos; table does not name id %1</source>
        <translation>未命名：标签表中没有 ID %1 的名称</translation>
    </message>
    <message>
        <location line="+111"/>
        <source>Colour of %1</source>
        <translation>%1 的颜色</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Every label id is in use</source>
        <translation>所有标签 ID 均已占用</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>%1: the file holds no labels</source>
        <translation>%1：文件中没有标签</translation>
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
        <translation>取消</translation>
    </message>
    <message>
        <location line="-102"/>
        <location line="+99"/>
        <source>Labels</source>
        <translation>标签</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+99"/>
        <source>AI</source>
        <translation>AI</translation>
    </message>
    <message>
        <location line="-98"/>
        <location line="+105"/>
        <location line="+507"/>
        <source>Training</source>
        <translation>训练</translation>
    </message>
    <message>
        <location line="-610"/>
        <source>Open an image (File &gt; Open Image) or a DICOM folder</source>
        <translation>请打开图像（文件 &gt; 打开图像）或 DICOM 文件夹</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>Import into Share</source>
        <translation>导入到共享</translation>
    </message>
    <message>
        <location line="+118"/>
        <source>Delineate - %1 (share)</source>
        <translation>Delineate - %1（共享）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate - %1</source>
        <translation>Delineate - %1</translation>
    </message>
    <message>
        <location line="+24"/>
        <source> (review state unreadable)</source>
        <translation>（审核状态无法读取）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source> NOT TRUSTED: %1.</source>
        <translation> 不可信：%1。</translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source> %n review step(s) not counted (unsigned, forged or out of role).</source>
        <translation>
            <numerusform> %n 个审核步骤未计入（未签名、伪造或越权）。</numerusform>
        </translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (not reviewed)</source>
        <translation>（未审核）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (submitted for review by %1)</source>
        <translation>（由 %1 提交审核）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (approved by %1)</source>
        <translation>（由 %1 批准）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source> (sent back by %1: %2)</source>
        <translation>（由 %1 退回：%2）</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>One study at a time: opening %1</source>
        <translation>一次只能打开一个检查：正在打开 %1</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>W %1  L %2</source>
        <translation>窗宽 %1  窗位 %2</translation>
    </message>
    <message>
        <location line="+108"/>
        <source>LPS (%1, %2, %3) mm</source>
        <translation>LPS (%1, %2, %3) mm</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>   voxel (%1, %2, %3)   %4 %5</source>
        <translation>   体素 (%1, %2, %3)   %4 %5</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>HU</source>
        <translation>HU</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>value</source>
        <translation>值</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   label %1 %2</source>
        <translation>   标签 %1 %2</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>   outside the image</source>
        <translation>   图像外</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>%1: cannot encode the screenshot</source>
        <translation>%1：无法编码屏幕截图</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>VISTA-3D checkpoint: %1</source>
        <translation>VISTA-3D 检查点：%1</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>AI engine: %1</source>
        <translation>AI 引擎：%1</translation>
    </message>
    <message>
        <location line="+62"/>
        <source>Dataset %1 version %2 saved: choose it in the Training dock</source>
        <translation>数据集 %1 版本 %2 已保存：请在训练面板中选择</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>%1 (share %2)</source>
        <translation>%1（共享 %2）</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+12"/>
        <source>%1, %2 (share %3)</source>
        <translation>%1，%2（共享 %3）</translation>
    </message>
    <message>
        <location line="-8"/>
        <source>%1 (DICOM series %2)</source>
        <translation>%1（DICOM 序列 %2）</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+2"/>
        <source>labels: %1</source>
        <translation>标签：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>The labels last saved with this study were written to %1, which is not there any more: the study opens without them</source>
        <translation>此研究最近保存的标签写入了 %1，该文件已不存在：研究将不带标签打开</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>A save to the share is running: cancel it or wait before closing</source>
        <translation>正在保存到共享：请先取消或等待完成再关闭</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>A training run (%1) is going on. Keep it running after the window closes? The window follows it again when it opens; No stops it with its checkpoint saved.</source>
        <translation>训练（%1）正在进行。关闭窗口后是否让它继续运行？窗口再次打开时会继续跟踪它；选择“否”将停止训练并保存检查点。</translation>
    </message>
    <message>
        <location filename="../app/gui/shell/main_window_menus.cpp" line="+45"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open Image...</source>
        <translation>打开图像(&amp;O)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Image</source>
        <translation>打开图像</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open &amp;DICOM Folder...</source>
        <translation>打开 DICOM 文件夹(&amp;D)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Open DICOM Folder</source>
        <translation>打开 DICOM 文件夹</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Open &amp;Label Map...</source>
        <translation>打开标签图(&amp;M)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open Label Map</source>
        <translation>打开标签图</translation>
    </message>
    <message>
        <location line="-29"/>
        <source>Images (%1);;All files (*)</source>
        <translation>图像 (%1);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Open from S&amp;hare...</source>
        <translation>从共享打开(&amp;H)...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open the &amp;Sample Study</source>
        <translation>打开示例检查(&amp;S)</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Import into Share...</source>
        <translation>导入到共享(&amp;I)...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Query/Retrieve from &amp;PACS...</source>
        <translation>从 PACS 查询/检索(&amp;P)...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label maps (%1);;All files (*)</source>
        <translation>标签图 (%1);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Open DICOM S&amp;EG...</source>
        <translation>打开 DICOM SEG(&amp;E)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the segmentation was drawn on first</source>
        <translation>请先打开绘制该分割所用的图像</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open DICOM SEG</source>
        <translation>打开 DICOM SEG</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+10"/>
        <source>DICOM (*.dcm);;All files (*)</source>
        <translation>DICOM (*.dcm);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="-6"/>
        <source>Open &amp;RT Structure Set...</source>
        <translation>打开 &amp;RT 结构集...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open the image the structures were drawn on first</source>
        <translation>请先打开绘制这些结构的图像</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Open RT Structure Set</source>
        <translation>打开 RT 结构集</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Open Labels from &amp;Share...</source>
        <translation>从共享目录打开标签(&amp;H)...</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>%1: the share holds no label set revision</source>
        <translation>%1：共享目录中没有任何标签集修订版本</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Open Labels from Share</source>
        <translation>从共享目录打开标签</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision:</source>
        <translation>修订版本：</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 / %2 r%3 is not bound to an image on the share: open its image first</source>
        <translation>%1 / %2 r%3 未绑定到共享上的图像：请先打开其图像</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Recent Studies</source>
        <translation>最近的检查</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Save to Share</source>
        <translation>保存到共享目录(&amp;S)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save to Share &amp;As...</source>
        <translation>另存到共享目录(&amp;A)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save &amp;Labels As...</source>
        <translation>标签另存为(&amp;L)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Save Labels As</source>
        <translation>标签另存为</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</source>
        <translation>NIfTI (*.nii.gz *.nii);;NRRD (*.nrrd);;MetaImage (*.mha)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Save &amp;Screenshot...</source>
        <translation>保存截图(&amp;C)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Save Screenshot</source>
        <translation>保存截图</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>PNG (*.png)</source>
        <translation>PNG (*.png)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Export</source>
        <translation>导出(&amp;X)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Send to PA&amp;CS...</source>
        <translation>发送到 PACS(&amp;N)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Open a study first: Send to PACS sends its labels as a DICOM SEG with their measurement report</source>
        <translation>请先打开一个检查：“发送到 PACS”会将其标签作为 DICOM SEG 连同测量报告一起发送</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Send to PACS Includes an &amp;RT Structure Set</source>
        <translation>发送到 PACS 时包含 &amp;RT 结构集</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;Preferences...</source>
        <translation>首选项(&amp;P)...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>&amp;AI</source>
        <translation>AI(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Everything</source>
        <translation>全部分割(&amp;E)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Segment &amp;Selected Classes</source>
        <translation>分割所选类别(&amp;S)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model &amp;Registry...</source>
        <translation>模型注册表(&amp;R)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Get Models...</source>
        <translation>获取模型(&amp;G)...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Review</source>
        <translation>审阅(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Submit for Review</source>
        <translation>提交审阅(&amp;S)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Approve</source>
        <translation>批准(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Send &amp;Back...</source>
        <translation>退回(&amp;B)...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Layout</source>
        <translation>布局</translation>
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
        <translation>面板</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Window/Level</source>
        <translation>窗宽窗位</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Automatic (image range)</source>
        <translation>自动（图像范围）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>&amp;Reset Views</source>
        <translation>重置视图(&amp;R)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label &amp;Outlines</source>
        <translation>标签轮廓(&amp;O)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Slices in &amp;3D</source>
        <translation>在 3D 中显示层面(&amp;3)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Show &amp;Crosshair</source>
        <translation>显示十字线(&amp;C)</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Keyboard Shortcuts and Mouse</source>
        <translation>键盘快捷键和鼠标(&amp;K)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;About Delineate</source>
        <translation>关于 Delineate(&amp;A)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>About Delineate</source>
        <translation>关于 Delineate</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Delineate %1: 3D medical image segmentation and annotation.</source>
        <translation>Delineate %1：3D 医学图像分割与标注。</translation>
    </message>
    <message>
        <location filename="../app/gui/base/window_level.cpp" line="+32"/>
        <source>Soft tissue</source>
        <translation>软组织窗</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Lung</source>
        <translation>肺窗</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Bone</source>
        <translation>骨窗</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Brain</source>
        <translation>脑窗</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelDownloadsDialog</name>
    <message>
        <location filename="../app/gui/ai/model_downloads.cpp" line="+67"/>
        <source>Get Models</source>
        <translation>获取模型</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Model weights are not installed with Delineate. Download a known model or one from a URL (its SHA-256 is checked before it is used), or register a file you already have. Engines find them as model:NAME.</source>
        <translation>模型权重不随 Delineate 安装。请下载已知模型或来自 URL 的模型（使用前会校验其 SHA-256），或登记您已有的文件。引擎通过 model:名称 找到它们。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Known public models:</source>
        <translation>已知的公开模型：</translation>
    </message>
    <message>
        <location line="+3"/>
        <location line="+11"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+0"/>
        <location line="+11"/>
        <location line="+156"/>
        <source>Licence</source>
        <translation>许可</translation>
    </message>
    <message>
        <location line="-167"/>
        <location line="+11"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>Where from</source>
        <translation>来源</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>On this computer:</source>
        <translation>本机上：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SHA-256</source>
        <translation>SHA-256</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>a known model&apos;s name, or https://...</source>
        <translation>已知模型的名称，或 https://...</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>the name engines find it by (a known model&apos;s own by default)</source>
        <translation>引擎查找它所用的名称（默认为已知模型自身的名称）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>optional: the SHA-256 the file must have</source>
        <translation>可选：文件必须具有的 SHA-256</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model or URL:</source>
        <translation>模型或 URL：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>SHA-256:</source>
        <translation>SHA-256：</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Register File...</source>
        <translation>登记文件...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Use for VISTA-3D</source>
        <translation>用于 VISTA-3D</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel Download</source>
        <translation>取消下载</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+4"/>
        <source>Register a Model File</source>
        <translation>登记模型文件</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>Model weights (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>模型权重 (*.pt *.pth *.safetensors);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Name engines find it by:</source>
        <translation>引擎查找它所用的名称：</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>no direct download: %1</source>
        <translation>无直接下载：%1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(verified)</source>
        <translation>（已校验）</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>(no published hash)</source>
        <translation>（无公布的哈希）</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>A URL needs a name: what engines will find it by.</source>
        <translation>URL 需要一个名称：引擎查找它所用的名称。</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 is neither a known model nor an http(s) URL.</source>
        <translation>%1 既不是已知模型，也不是 http(s) URL。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 has no direct download: get %2 from %3 (licence: %4), then Register File.</source>
        <translation>%1 没有直接下载：请从 %3 获取 %2（许可：%4），然后登记文件。</translation>
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

来源：%2
许可：%3
大小：%4
SHA-256：%5

接受许可并下载？</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>not published</source>
        <translation>未公布</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>none published (recorded as unverified)</source>
        <translation>未公布（记录为未校验）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Downloading %1...</source>
        <translation>正在下载 %1...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1: %2 MB, SHA-256 %3 (%4). Engines find it as model:%1.</source>
        <translation>%1：%2 MB，SHA-256 %3（%4）。引擎通过 model:%1 找到它。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>verified</source>
        <translation>已校验</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>no published hash to check it against</source>
        <translation>无公布的哈希可供校验</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Resumed: %1 bytes from an earlier download, %2 broken connection(s).</source>
        <translation>已续传：来自先前下载的 %1 字节，%2 次连接中断。</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Hashing %1...</source>
        <translation>正在计算 %1 的哈希...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1 registered: %2 (SHA-256 %3). Engines find it as model:%1.</source>
        <translation>%1 已登记：%2（SHA-256 %3）。引擎通过 model:%1 找到它。</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>The VISTA-3D checkpoint is now %1.</source>
        <translation>VISTA-3D 检查点现在为 %1。</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ModelRegistryDialog</name>
    <message>
        <location filename="../app/gui/ai/model_registry.cpp" line="+131"/>
        <source>Model Registry</source>
        <translation>模型注册表</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models, every checkpoint revision. Choose one to see its Dice per structure, two to compare them; &quot;Use as AI engine&quot; segments with the chosen one.</source>
        <translation>共享中已训练的模型，每个检查点修订版。选择一个以查看其各结构的 Dice，选择两个进行比较；“用作 AI 引擎”将使用所选模型进行分割。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Revision</source>
        <translation>修订版</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Classes</source>
        <translation>类别</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Validation Dice</source>
        <translation>验证 Dice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Dataset</source>
        <translation>数据集</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Iteration</source>
        <translation>迭代</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved by</source>
        <translation>保存者</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Saved</source>
        <translation>保存时间</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Use as AI engine</source>
        <translation>用作 AI 引擎</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>No share is open: open a study from a share first (File &gt; Open from Share)</source>
        <translation>未打开共享：请先从共享打开一个检查（文件 &gt; 从共享打开）</translation>
    </message>
    <message>
        <location line="+54"/>
        <source>not validated</source>
        <translation>未验证</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>These weights (iteration %1) were not validated; the last validation, at iteration %2, measured earlier weights</source>
        <translation>这些权重（第 %1 次迭代）未经验证；最近一次验证在第 %2 次迭代，测量的是更早的权重</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>These weights (iteration %1) were not validated</source>
        <translation>这些权重（第 %1 次迭代）未经验证</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validated at iteration %1</source>
        <translation>在第 %1 次迭代验证</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The run&apos;s best validation Dice up to these weights: %1</source>
        <translation>截至这些权重时该次训练的最佳验证 Dice：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 v%2</source>
        <translation>%1 v%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>case list</source>
        <translation>病例列表</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>(%1 train, %2 validation)</source>
        <translation>（%1 训练，%2 验证）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>being trained by %1</source>
        <translation>正由 %1 训练</translation>
    </message>
    <message>
        <location line="+29"/>
        <source>The share has no trained model yet: train one in the Training dock</source>
        <translation>共享中还没有已训练的模型：请在训练面板中训练一个</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoint revisions: %1. Choose one, or two to compare</source>
        <translation>检查点修订版：%1。选择一个，或选择两个进行比较</translation>
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
        <translation>结构</translation>
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
        <translation>选择一个修订版，或选择两个进行比较</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Difference</source>
        <translation>差值</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>%1: not validated (iteration %2; the last validation, at iteration %3, measured earlier weights)</source>
        <translation>%1：未验证（第 %2 次迭代；最近一次验证在第 %3 次迭代，测量的是更早的权重）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: not validated (iteration %2)</source>
        <translation>%1：未验证（第 %2 次迭代）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: validation Dice %2 (structures: %3)</source>
        <translation>%1：验证 Dice %2（结构：%3）</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+13"/>
        <location line="+1"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="-11"/>
        <source>validated at iteration %1</source>
        <translation>在第 %1 次迭代验证</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>at iteration %1</source>
        <translation>于第 %1 次迭代</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>learnt from dataset %1 version %2</source>
        <translation>学习自数据集 %1 版本 %2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>saved by %1</source>
        <translation>保存者 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 against %2: validation Dice %3 and %4; structures better: %5, worse: %6</source>
        <translation>%1 对比 %2：验证 Dice %3 和 %4；更好的结构：%5，更差的：%6</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+1"/>
        <source>none (not validated)</source>
        <translation>无（未验证）</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsBrowserDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_browser.cpp" line="+129"/>
        <source>Query/Retrieve from PACS</source>
        <translation>从 PACS 查询/检索</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Doe^J*</source>
        <translation>Zhang^S*</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>from YYYY-MM-DD</source>
        <translation>起 YYYY-MM-DD</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>止 YYYY-MM-DD</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any</source>
        <translation>任意</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;Search</source>
        <translation>搜索(&amp;S)</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Server:</source>
        <translation>服务器：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient name:</source>
        <translation>患者姓名：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Patient ID:</source>
        <translation>患者 ID：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Accession:</source>
        <translation>检查号：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Modality:</source>
        <translation>模态：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study date:</source>
        <translation>检查日期：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Description:</source>
        <translation>描述：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Patient</source>
        <translation>患者</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Patient ID</source>
        <translation>患者 ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Birth date</source>
        <translation>出生日期</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Study date</source>
        <translation>检查日期</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+2"/>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <location line="-2"/>
        <source>Accession</source>
        <translation>检查号</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modalities</source>
        <translation>模态</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Series</source>
        <translation>序列</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Number</source>
        <translation>编号</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Modality</source>
        <translation>模态</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Instances</source>
        <translation>实例</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>Import into the share:</source>
        <translation>导入到共享：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Off: the series is kept in this computer&apos;s cache for a look, not imported</source>
        <translation>关闭：序列仅保存在本机缓存中供查看，不导入</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>&amp;Retrieve</source>
        <translation>检索(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The chosen series, or all of the study&apos;s when none is chosen</source>
        <translation>所选序列；未选择时为该检查的全部序列</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>Share to import into</source>
        <translation>要导入到的共享</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+56"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>尚未设置 PACS 服务器：请在 首选项 &gt; PACS 服务器 中添加</translation>
    </message>
    <message>
        <location line="-17"/>
        <source>Working</source>
        <translation>处理中</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Searching</source>
        <translation>正在搜索</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieving</source>
        <translation>正在检索</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Importing into the share</source>
        <translation>正在导入共享</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cancelling...</source>
        <translation>正在取消...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Study date: &apos;%1&apos; is not a date (YYYY-MM-DD)</source>
        <translation>检查日期：“%1”不是日期（YYYY-MM-DD）</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Searching %1...</source>
        <translation>正在搜索 %1...</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Search cancelled</source>
        <translation>搜索已取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Search failed: %1</source>
        <translation>搜索失败：%1</translation>
    </message>
    <message>
        <location line="+28"/>
        <source>Studies found on %1: %2</source>
        <translation>在 %1 上找到的检查：%2</translation>
    </message>
    <message>
        <location line="+122"/>
        <source>Instances retrieved: %1 (%2 MB), already here: %3</source>
        <translation>已检索实例：%1（%2 MB），已在本地：%3</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>instances that did not arrive: %1 (Retrieve again asks for them)</source>
        <translation>未到达的实例：%1（再次检索会重新请求）</translation>
    </message>
    <message numerus="yes">
        <location line="+14"/>
        <source>Imported into the share: %n series, files copied: %1</source>
        <translation>
            <numerusform>已导入共享：%n 个序列，已复制文件：%1</numerusform>
        </translation>
    </message>
    <message>
        <location line="-123"/>
        <source>Listing the series of the study...</source>
        <translation>正在列出该检查的序列...</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>The series could not be listed: %1</source>
        <translation>无法列出序列：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+23"/>
        <source>%n series in the study</source>
        <translation>
            <numerusform>该检查中有 %n 个序列</numerusform>
        </translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Choose a study first (its series are listed below it)</source>
        <translation>请先选择一个检查（其序列列在下方）</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Choose the share to import into, or turn Import into the share off for a look</source>
        <translation>请选择要导入到的共享，或关闭“导入到共享”以仅供查看</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>No author name: the retrieve was not started</source>
        <translation>没有作者姓名：检索未开始</translation>
    </message>
    <message numerus="yes">
        <location line="+10"/>
        <source>Retrieving %n series from %1...</source>
        <translation>
            <numerusform>正在从 %1 检索 %n 个序列...</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Retrieve cancelled: what arrived stays, Retrieve again finishes it</source>
        <translation>检索已取消：已到达的内容保留，再次检索即可完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Retrieve failed: %1</source>
        <translation>检索失败：%1</translation>
    </message>
    <message>
        <location line="+13"/>
        <source>Import into the share failed: %1</source>
        <translation>导入到共享失败：%1</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The audit record was not written: %1</source>
        <translation>审计记录未写入：%1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsPeer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_peer.cpp" line="+93"/>
        <source>token</source>
        <translation>令牌</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>password</source>
        <translation>密码</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1: no %2 is stored for this server (set it in Preferences, PACS Servers)</source>
        <translation>%1：此服务器未存储%2（请在 首选项 &gt; PACS 服务器 中设置）</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The PACS answered &apos;%1&apos; as a UID, which is not one: not used as a folder name</source>
        <translation>PACS 返回的 UID“%1”无效：未用作文件夹名称</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsSendDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_send.cpp" line="+35"/>
        <source>Send to PACS</source>
        <translation>发送到 PACS</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&amp;Send</source>
        <translation>发送(&amp;S)</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Server:</source>
        <translation>服务器：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What:</source>
        <translation>内容：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>the labels as a DICOM SEG and their measurement report (SR)</source>
        <translation>标签（DICOM SEG）及其测量报告（SR）</translation>
    </message>
    <message>
        <location line="+24"/>
        <location line="+26"/>
        <source>No PACS server is set up: add one in Preferences, PACS Servers</source>
        <translation>尚未设置 PACS 服务器：请在 首选项 &gt; PACS 服务器 中添加</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Cancelling...</source>
        <translation>正在取消...</translation>
    </message>
    <message>
        <location line="+19"/>
        <location line="+6"/>
        <location line="+5"/>
        <source>The files to send could not be made: %1</source>
        <translation>无法生成要发送的文件：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Sending the SEG and its report to %1...</source>
        <translation>正在将 SEG 及其报告发送到 %1...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Sent to %1 (%2): the SEG and its measurement report</source>
        <translation>已发送到 %1（%2）：SEG 及其测量报告</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>Sending cancelled: the PACS may hold part of it</source>
        <translation>发送已取消：PACS 可能已收到部分内容</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Not sent: %1</source>
        <translation>未发送：%1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServer</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers.cpp" line="+55"/>
        <source>%1 &apos;%2&apos; does not exist</source>
        <translation>%1“%2”不存在</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; is not a file</source>
        <translation>%1“%2”不是文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 &apos;%2&apos; cannot be read</source>
        <translation>%1“%2”无法读取</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>the keyring did not answer within %1 s</source>
        <translation>密钥环未在 %1 秒内响应</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>keyring error %1</source>
        <translation>密钥环错误 %1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>The name is empty</source>
        <translation>名称为空</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>%1 &apos;%2&apos; is not an AE title (1 to 16 characters, no backslash)</source>
        <translation>%1“%2”不是有效的 AE 标题（1 至 16 个字符，不含反斜杠）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AE title</source>
        <translation>AE 标题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The host is empty</source>
        <translation>主机为空</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Port %1 is not a port (1 to 65535)</source>
        <translation>端口 %1 不是有效端口（1 至 65535）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our AE title</source>
        <translation>本机 AE 标题</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>C-MOVE AE title</source>
        <translation>C-MOVE AE 标题</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-MOVE port %1 is not a port (1 to 65535)</source>
        <translation>C-MOVE 端口 %1 不是有效端口（1 至 65535）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs the CA file the PACS&apos;s certificate chains to</source>
        <translation>TLS 需要 PACS 证书链所指向的 CA 文件</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>URL &apos;%1&apos; is not an http:// or https:// URL</source>
        <translation>URL“%1”不是 http:// 或 https:// URL</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>URL &apos;%1&apos; holds a user name or password: use the authentication fields</source>
        <translation>URL“%1”中包含用户名或密码：请使用身份验证字段</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS needs an https:// URL</source>
        <translation>TLS 需要 https:// URL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Basic authentication needs a user name</source>
        <translation>Basic 身份验证需要用户名</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>CA file</source>
        <translation>CA 文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate</source>
        <translation>本机证书</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key</source>
        <translation>本机私钥</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our private key needs our certificate</source>
        <translation>本机私钥需要本机证书</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate needs its private key</source>
        <translation>本机证书需要其私钥</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Requests in flight %1 is not between 1 and 16</source>
        <translation>并发请求数 %1 不在 1 到 16 之间</translation>
    </message>
    <message>
        <location line="+68"/>
        <source>PACS server &apos;%1&apos;: %2</source>
        <translation>PACS 服务器“%1”：%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Two PACS servers are named &apos;%1&apos;</source>
        <translation>有两个 PACS 服务器都名为“%1”</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>The settings file %1 could not be written</source>
        <translation>无法写入设置文件 %1</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>no keyring answered (%1): the secret of &apos;%2&apos; is kept for this session only</source>
        <translation>没有密钥环响应（%1）：“%2”的凭据仅在本次会话中保留</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>the keyring holds no secret for &apos;%1&apos;</source>
        <translation>密钥环中没有“%1”的凭据</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>no keyring answered (%1): no secret for &apos;%2&apos;</source>
        <translation>没有密钥环响应（%1）：没有“%2”的凭据</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>no keyring answered (%1): a secret of &apos;%2&apos; may still be in it</source>
        <translation>没有密钥环响应（%1）：其中可能仍存有“%2”的凭据</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServerDialog</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_dialog.cpp" line="+31"/>
        <source>Add PACS Server</source>
        <translation>添加 PACS 服务器</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Edit PACS Server</source>
        <translation>编辑 PACS 服务器</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>DIMSE (C-FIND, C-GET or C-MOVE)</source>
        <translation>DIMSE（C-FIND、C-GET 或 C-MOVE）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb (QIDO-RS, WADO-RS)</source>
        <translation>DICOMweb（QIDO-RS、WADO-RS）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Protocol:</source>
        <translation>协议：</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>the PACS&apos;s AE title</source>
        <translation>PACS 的 AE 标题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>AE title:</source>
        <translation>AE 标题：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Host:</source>
        <translation>主机：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Port:</source>
        <translation>端口：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Our AE title:</source>
        <translation>本机 AE 标题：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>C-GET</source>
        <translation>C-GET</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE to our storage SCP</source>
        <translation>C-MOVE 到本机存储 SCP</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Retrieve by:</source>
        <translation>检索方式：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>our AE title</source>
        <translation>本机 AE 标题</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-MOVE destination AE title:</source>
        <translation>C-MOVE 目标 AE 标题：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>C-MOVE port we listen on:</source>
        <translation>本机 C-MOVE 监听端口：</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>URL:</source>
        <translation>URL：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>User name and password (basic)</source>
        <translation>用户名和密码（Basic）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Token (bearer)</source>
        <translation>令牌（Bearer）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Authentication:</source>
        <translation>身份验证：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>User:</source>
        <translation>用户：</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Kept in the desktop keyring, never in the settings file.</source>
        <translation>保存在桌面密钥环中，绝不写入设置文件。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Use TLS</source>
        <translation>使用 TLS</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>TLS:</source>
        <translation>TLS：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>PEM files (*.pem *.crt *.key);;All files (*)</source>
        <translation>PEM 文件 (*.pem *.crt *.key);;所有文件 (*)</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>CA file:</source>
        <translation>CA 文件：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Certificate Authorities (PEM)</source>
        <translation>证书颁发机构（PEM）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOMweb: the system&apos;s certificate authorities</source>
        <translation>DICOMweb：系统的证书颁发机构</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our certificate:</source>
        <translation>本机证书：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Certificate (PEM)</source>
        <translation>本机证书（PEM）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>only where the PACS asks for one</source>
        <translation>仅在 PACS 要求时</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Our private key:</source>
        <translation>本机私钥：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Our Private Key (PEM)</source>
        <translation>本机私钥（PEM）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Associations (DIMSE) or HTTP requests (DICOMweb) at once when retrieving</source>
        <translation>检索时同时进行的关联（DIMSE）或 HTTP 请求（DICOMweb）数</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Requests in flight:</source>
        <translation>并发请求数：</translation>
    </message>
    <message>
        <location line="+52"/>
        <source>Another server is named &apos;%1&apos;</source>
        <translation>已有另一个服务器名为“%1”</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>The token is empty</source>
        <translation>令牌为空</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>The password is empty</source>
        <translation>密码为空</translation>
    </message>
    <message>
        <location line="+22"/>
        <source>Token:</source>
        <translation>令牌：</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Password:</source>
        <translation>密码：</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PacsServersPage</name>
    <message>
        <location filename="../app/gui/pacs/pacs_servers_page.cpp" line="+46"/>
        <source>The PACS the window queries and retrieves from. Passwords and tokens are kept in the desktop keyring, never in the settings file.</source>
        <translation>窗口查询和检索所用的 PACS。密码和令牌保存在桌面密钥环中，绝不写入设置文件。</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>&amp;Add...</source>
        <translation>添加(&amp;A)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Edit...</source>
        <translation>编辑(&amp;E)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Remove</source>
        <translation>删除(&amp;R)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>&amp;Test</source>
        <translation>测试(&amp;T)</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>C-ECHO (DIMSE) or a study query (DICOMweb): whether the server answers us</source>
        <translation>C-ECHO（DIMSE）或检查查询（DICOMweb）：检测服务器是否响应</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <location line="+83"/>
        <location line="+10"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Asking %1 (%2)...</source>
        <translation>正在询问 %1（%2）...</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1 (%2) answered in %3 ms</source>
        <translation>%1（%2）在 %3 ms 内响应</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PdfReport</name>
    <message>
        <location filename="../app/gui/reports/pdf_report.cpp" line="+53"/>
        <source>label %1</source>
        <translation>标签 %1</translation>
    </message>
    <message>
        <location line="+183"/>
        <source>Page %1 of %2</source>
        <translation>第 %1 页，共 %2 页</translation>
    </message>
    <message>
        <location line="+8"/>
        <location line="+194"/>
        <source>De-identified report</source>
        <translation>去标识化报告</translation>
    </message>
    <message>
        <location line="-194"/>
        <location line="+203"/>
        <source>Segmentation report</source>
        <translation>分割报告</translation>
    </message>
    <message>
        <location line="-199"/>
        <source>Patient: %1</source>
        <translation>患者：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study: %1</source>
        <translation>检查：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Series: %1</source>
        <translation>序列：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Report date: %1</source>
        <translation>报告日期：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Image: %1 × %2 × %3 voxels of %4 × %5 × %6 mm%7</source>
        <translation>图像：%1 × %2 × %3 体素，体素大小 %4 × %5 × %6 mm%7</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>, intensities in HU</source>
        <translation>，强度单位 HU</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Software: Delineate</source>
        <translation>软件：Delineate</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Software: Delineate %1</source>
        <translation>软件：Delineate %1</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Label statistics</source>
        <translation>标签统计</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Label statistics (continued)</source>
        <translation>标签统计（续）</translation>
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
        <translation>名称</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Voxels</source>
        <translation>体素</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Volume</source>
        <translation>体积</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>%1 %2: %3, centroid (%4, %5, %6) mm LPS</source>
        <translation>%1 %2：%3，质心 (%4, %5, %6) mm LPS</translation>
    </message>
    <message>
        <location line="-56"/>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>SD</source>
        <translation>标准差</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Min</source>
        <translation>最小值</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Max</source>
        <translation>最大值</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Longest diameter (mm)</source>
        <translation>最大径 (mm)</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>No labels.</source>
        <translation>无标签。</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Key images</source>
        <translation>关键图像</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Axial</source>
        <translation>轴位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>冠状位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>矢状位</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>%1, slice %2 of %3</source>
        <translation>%1，第 %2 层，共 %3 层</translation>
    </message>
    <message>
        <location line="+90"/>
        <source>Segmentation report: %1</source>
        <translation>分割报告：%1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::PreferencesDialog</name>
    <message>
        <location filename="../app/gui/shell/preferences.cpp" line="-134"/>
        <source>Preferences</source>
        <translation>首选项</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>General</source>
        <translation>常规</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>PACS Servers</source>
        <translation>PACS 服务器</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Author name for saves:</source>
        <translation>保存时的作者名：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Autosave unsaved edits every:</source>
        <translation>自动保存未保存编辑的间隔：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>none: the classic CPU engine</source>
        <translation>无：使用经典 CPU 引擎</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>VISTA-3D checkpoint:</source>
        <translation>VISTA-3D 检查点：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>AI device:</source>
        <translation>AI 设备：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Automatic (reduced on software OpenGL)</source>
        <translation>自动（软件 OpenGL 时降低）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Full</source>
        <translation>完整</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Reduced</source>
        <translation>降低</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>How finely the 3D view meshes large labels. Exported surface files are always meshed at full detail.</source>
        <translation>3D 视图对大标签网格化的精细程度。导出的表面文件始终以完整细节网格化。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>3D surface detail:</source>
        <translation>3D 表面细节：</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>VISTA-3D Checkpoint</source>
        <translation>VISTA-3D 检查点</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Checkpoints (*.pt *.pth *.safetensors);;All files (*)</source>
        <translation>检查点 (*.pt *.pth *.safetensors);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SessionFiles</name>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+148"/>
        <source>The recovered labels do not fit %1&apos;s grid</source>
        <translation>恢复的标签与 %1 的网格不匹配</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Recovered the unsaved edits: save them to keep them</source>
        <translation>已恢复未保存的编辑：请保存以保留这些编辑</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Unsaved Edits</source>
        <translation>未保存的编辑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The labels have unsaved edits. Save them to the share?</source>
        <translation>标签有未保存的编辑。是否保存到共享目录？</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Autosave is off: %1</source>
        <translation>自动保存已关闭：%1</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Autosave failed: %1</source>
        <translation>自动保存失败：%1</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Save to Share</source>
        <translation>保存到共享目录</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+81"/>
        <source>a folder on the network share; Create Share makes a new one</source>
        <translation>网络共享上的文件夹；“创建共享”可新建一个</translation>
    </message>
    <message>
        <location line="+3"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+1"/>
        <source>Create Share</source>
        <translation>创建共享</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="+2"/>
        <source>Make this folder a new share store</source>
        <translation>将此文件夹设为新的共享存储</translation>
    </message>
    <message>
        <location line="+12"/>
        <location filename="../app/gui/study/share_import.cpp" line="+5"/>
        <source>Share folder:</source>
        <translation>共享文件夹：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study:</source>
        <translation>检查：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>标签集：</translation>
    </message>
    <message>
        <location line="+4"/>
        <location filename="../app/gui/study/share_import.cpp" line="+4"/>
        <location line="+23"/>
        <source>Share Folder</source>
        <translation>共享文件夹</translation>
    </message>
    <message>
        <location line="+7"/>
        <location filename="../app/gui/study/share_import.cpp" line="-16"/>
        <source>Folder for the New Share</source>
        <translation>新共享的文件夹</translation>
    </message>
    <message>
        <location line="+2"/>
        <location filename="../app/gui/study/share_import.cpp" line="-40"/>
        <location line="+68"/>
        <source>Choose a folder first.</source>
        <translation>请先选择一个文件夹。</translation>
    </message>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="-66"/>
        <source>%1 is a share already.</source>
        <translation>%1 已经是共享存储。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1: the folder cannot be created</source>
        <translation>%1：无法创建该文件夹</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>No share was created: %1</source>
        <translation>未创建共享：%1</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Created a share in %1.</source>
        <translation>已在 %1 中创建共享。</translation>
    </message>
    <message>
        <location filename="../app/gui/study/session_files.cpp" line="+31"/>
        <source>No share to save to: use Save to Share As</source>
        <translation>没有可保存到的共享目录：请使用“另存到共享目录”</translation>
    </message>
    <message>
        <location line="+95"/>
        <source>Finish the stroke before saving</source>
        <translation>保存前请先完成当前笔画</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 / %2: study and label set names may hold letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos; only</source>
        <translation>%1 / %2：检查名和标签集名只能包含字母、数字、&apos;-&apos;、&apos;_&apos; 和 &apos;.&apos;</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) before saving</source>
        <translation>请等待当前任务完成（或取消它）后再保存</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Not saved: out of memory copying the labels for the save</source>
        <translation>未保存：复制标签用于保存时内存不足</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Saving to the share</source>
        <translation>正在保存到共享</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>The cancelled save finished when the share answered: %1 / %2 revision %3 (the labels in the window are still marked unsaved)</source>
        <translation>已取消的保存在共享恢复响应后完成：%1 / %2 修订版 %3（窗口中的标签仍标记为未保存）</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Save cancelled: the share has not answered. The labels stay unsaved (and in the autosave journal). If the share answers before the revision is made, none is made.</source>
        <translation>保存已取消：共享未响应。标签仍未保存（并保留在自动保存日志中）。如果共享在创建修订版之前恢复响应，则不会创建修订版。</translation>
    </message>
    <message>
        <location line="-57"/>
        <source>Save cancelled; no revision was made</source>
        <translation>保存已取消；未创建修订版</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+123"/>
        <source>Not saved: %1</source>
        <translation>未保存：%1</translation>
    </message>
    <message>
        <location line="-184"/>
        <source>The audit record was not written: %1</source>
        <translation>审计记录未写入：%1</translation>
    </message>
    <message>
        <location line="+133"/>
        <source>%1 on %2 is editing this label set too (since %3).</source>
        <translation>%1（在 %2 上）也在编辑此标签集（自 %3 起）。</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Saved %1 / %2 revision %3</source>
        <translation>已保存 %1 / %2，修订版本 %3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Edits made during the save are not in it: the labels stay marked unsaved.</source>
        <translation>保存期间所做的编辑不包含在其中：标签仍标记为未保存。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Revision %1 was saved by someone else after revision %2, which your edits started from. Your labels are saved as revision %3 and marked as a conflict; nothing was overwritten. Compare the two revisions before going on.</source>
        <translation>在您的编辑所基于的修订版本 %2 之后，其他人保存了修订版本 %1。您的标签已保存为修订版本 %3 并标记为冲突；未覆盖任何内容。请先比较这两个修订版本再继续。</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saved as a conflict revision</source>
        <translation>已保存为冲突修订版本</translation>
    </message>
    <message>
        <location line="+21"/>
        <source>Labels written to %1</source>
        <translation>标签已写入 %1</translation>
    </message>
    <message>
        <location line="+23"/>
        <source>Delineate stopped on %1 with unsaved label edits of %2 (autosaved %3). Recover them?</source>
        <translation>Delineate 在 %1 上停止运行时，%2 的标签编辑尚未保存（自动保存于 %3）。是否恢复？</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Recover Unsaved Edits</source>
        <translation>恢复未保存的编辑</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Cannot recover: the image %1 is not there any more; the edits stay in %2</source>
        <translation>无法恢复：图像 %1 已不存在；编辑内容仍保留在 %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Cannot recover: %1</source>
        <translation>无法恢复：%1</translation>
    </message>
    <message>
        <location line="+46"/>
        <source>The label set&apos;s lease was lost (%1): another user may be editing it; your next save may become a conflict revision</source>
        <translation>标签集的编辑锁已丢失（%1）：可能有其他用户正在编辑该标签集；您下次保存时可能会生成冲突修订版本</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImportDialog</name>
    <message>
        <location filename="../app/gui/study/share_import.cpp" line="+71"/>
        <source>Import into Share</source>
        <translation>导入到共享</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM folders or image files; several separated by ;</source>
        <translation>DICOM 文件夹或图像文件；多个以 ; 分隔</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Folder...</source>
        <translation>文件夹...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Files...</source>
        <translation>文件...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Import:</source>
        <translation>导入：</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Browse...</source>
        <translation>浏览...</translation>
    </message>
    <message>
        <location line="-7"/>
        <source>from the files (a DICOM study&apos;s UID, a volume file&apos;s name)</source>
        <translation>取自文件（DICOM 检查的 UID、体数据文件的名称）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study name:</source>
        <translation>检查名称：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>De-identify DICOM (PS3.15 basic profile; pseudonyms from a key kept off the share)</source>
        <translation>对 DICOM 去标识化（PS3.15 基本配置；假名由保存在共享之外的密钥生成）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>key file (16+ bytes), not on the share</source>
        <translation>密钥文件（16 字节以上），不得位于共享上</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Key:</source>
        <translation>密钥：</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Import Folder</source>
        <translation>导入文件夹</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Import Files</source>
        <translation>导入文件</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Importing into %1...</source>
        <translation>正在导入到 %1...</translation>
    </message>
    <message>
        <location line="-24"/>
        <source>De-identification Key</source>
        <translation>去标识化密钥</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareImporter</name>
    <message>
        <location line="+57"/>
        <source>An import is already running</source>
        <translation>已有导入正在进行</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Nothing to import: choose DICOM folders or image files</source>
        <translation>没有可导入的内容：请选择 DICOM 文件夹或图像文件</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Choose the share to import into</source>
        <translation>请选择要导入到的共享</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>De-identification needs a key file (kept off the share)</source>
        <translation>去标识化需要一个密钥文件（保存在共享之外）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No author name: the import was not started</source>
        <translation>没有作者姓名：导入未开始</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Importing into %1</source>
        <translation>正在导入到 %1</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Import cancelled: what was copied stays, importing again finishes it</source>
        <translation>导入已取消：已复制的内容保留，再次导入即可完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Import failed: %1</source>
        <translation>导入失败：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+11"/>
        <source>%n series imported: %1 files copied, %2 already on the share</source>
        <translation>
            <numerusform>已导入 %n 个序列：复制了 %1 个文件，%2 个已在共享上</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Not imported: %1</source>
        <translation>未导入：%1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source> (and %1 more)</source>
        <translation>（另有 %1 个）</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>审计记录未写入：%1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::ShareReview</name>
    <message>
        <location filename="../app/gui/study/share_review.cpp" line="+71"/>
        <source>Send Back</source>
        <translation>退回</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>What should the author change? (stored with the review)</source>
        <translation>作者应修改什么？（随审阅一起保存）</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Not sent back: say what to change in a comment</source>
        <translation>未退回：请在评论中说明需要修改的内容</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>No share revision to review: open one from the share, or save the labels to the share first</source>
        <translation>没有可审阅的共享修订：请从共享中打开一个，或先将标签保存到共享</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>The labels have unsaved edits: a review is of revision %1 as it is on the share. Save (a new revision) or undo the edits first.</source>
        <translation>标签有未保存的编辑：审阅针对的是共享上的修订 %1。请先保存（新修订）或撤销编辑。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Wait for the running job to finish (or cancel it) first</source>
        <translation>请先等待正在运行的任务完成（或取消它）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>%1 / %2 revision %3</source>
        <translation>%1 / %2 修订 %3</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>%1 not recorded: %2</source>
        <translation>%1未记录：%2</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submission</source>
        <translation>提交</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approval</source>
        <translation>批准</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sending back</source>
        <translation>退回</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1 submitted for review by %2</source>
        <translation>%1 已由 %2 提交审阅</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 approved by %2</source>
        <translation>%1 已由 %2 批准</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>%1 sent back by %2</source>
        <translation>%1 已由 %2 退回</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The audit record was not written: %1</source>
        <translation>审计记录未写入：%1</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SlicePanel</name>
    <message>
        <location filename="../app/gui/views/view_panels.cpp" line="+26"/>
        <source>Axial</source>
        <translation>轴位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Coronal</source>
        <translation>冠状位</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Sagittal</source>
        <translation>矢状位</translation>
    </message>
    <message>
        <location line="+66"/>
        <source>%1  %2 / %3</source>
        <translation>%1  %2 / %3</translation>
    </message>
    <message>
        <location line="+32"/>
        <source>− point: not the object here</source>
        <translation>− 点：此处不是对象</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ point: the object is here</source>
        <translation>+ 点：对象在此处</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− box: drag over what is not the object</source>
        <translation>− 框：拖过非对象区域</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ box: drag around the object</source>
        <translation>+ 框：围绕对象拖动</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− scribble: paint over what is not the object</source>
        <translation>− 涂画：在非对象处涂画</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ scribble: paint over the object</source>
        <translation>+ 涂画：在对象上涂画</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>− lasso: circle what is not the object</source>
        <translation>− 套索：圈出非对象区域</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>+ lasso: circle part of the object</source>
        <translation>+ 套索：圈出对象的一部分</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SliceRangeDialog</name>
    <message>
        <location filename="../app/gui/reports/slice_range_dialog.cpp" line="+17"/>
        <source>Statistics of a Slice Range</source>
        <translation>切片范围的统计</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Axial</source>
        <translation>轴位</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Coronal</source>
        <translation>冠状位</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Sagittal</source>
        <translation>矢状位</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Slices of the view:</source>
        <translation>视图的切片：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>From slice:</source>
        <translation>起始切片：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>To slice:</source>
        <translation>结束切片：</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyBrowserDialog</name>
    <message>
        <location filename="../app/gui/study/study_browser.cpp" line="+50"/>
        <source>Patient ID</source>
        <translation>患者 ID</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Patient</source>
        <translation>患者</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Date</source>
        <translation>日期</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Modality</source>
        <translation>模态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Description</source>
        <translation>描述</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label sets</source>
        <translation>标签集</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Latest revision</source>
        <translation>最新修订版</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Review</source>
        <translation>审核</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Editing</source>
        <translation>正在编辑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Study</source>
        <translation>检查</translation>
    </message>
    <message>
        <location line="+105"/>
        <source>Open from Share</source>
        <translation>从共享打开</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Share Folder...</source>
        <translation>共享文件夹...</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Search patient ID or name, description, study</source>
        <translation>搜索患者 ID 或姓名、描述、检查</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any modality</source>
        <translation>任意模态</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Any label status</source>
        <translation>任意标签状态</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No labels</source>
        <translation>无标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Being edited</source>
        <translation>正在编辑</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Has revisions</source>
        <translation>有修订版</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Submitted for review</source>
        <translation>已提交审核</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>from YYYY-MM-DD</source>
        <translation>起 YYYY-MM-DD</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>to YYYY-MM-DD</source>
        <translation>止 YYYY-MM-DD</translation>
    </message>
    <message>
        <location line="+34"/>
        <source>Series:</source>
        <translation>序列：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Labels:</source>
        <translation>标签：</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Make Dataset...</source>
        <translation>创建数据集...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>A training dataset of the chosen studies&apos; labels (choose several with Ctrl or Shift)</source>
        <translation>由所选检查的标签组成的训练数据集（按 Ctrl 或 Shift 选择多个）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Share Folder</source>
        <translation>共享文件夹</translation>
    </message>
    <message>
        <location line="+51"/>
        <source>%1: the share does not answer (a hung network mount?)</source>
        <translation>%1：共享没有响应（网络挂载卡住了？）</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>Share: %1</source>
        <translation>共享：%1</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Make Dataset</source>
        <translation>创建数据集</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Approved revisions only</source>
        <translation>仅已批准的修订版</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Studies (%1):</source>
        <translation>检查（%1）：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Label set:</source>
        <translation>标签集：</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Validation:</source>
        <translation>验证：</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>A dataset needs chosen studies, a name and a label set</source>
        <translation>数据集需要所选检查、名称和标签集</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Saving dataset %1...</source>
        <translation>正在保存数据集 %1...</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Dataset %1 not saved: %2</source>
        <translation>数据集 %1 未保存：%2</translation>
    </message>
    <message>
        <location line="+31"/>
        <source>Saved dataset %1 version %2: %3 entries (%4 train, %5 validation)</source>
        <translation>已保存数据集 %1 版本 %2：%3 个条目（%4 训练，%5 验证）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>%1% of %2 studies rounds to none: one study validates so that the model is measured</source>
        <translation>%2 个研究的 %1% 取整后为零：一个研究用于验证，以便评估模型</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>warning: no validation study (one study cannot both train and validate): the model will not be validated</source>
        <translation>警告：没有验证研究（一个研究不能同时用于训练和验证）：模型将不会被验证</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>skipped %1</source>
        <translation>已跳过 %1</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>Reading the share&apos;s catalogue...</source>
        <translation>正在读取共享的目录...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>The share&apos;s catalogue could not be read: %1</source>
        <translation>无法读取共享的目录：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+6"/>
        <source>%n damaged catalogue entries skipped: %1</source>
        <translation>
            <numerusform>已跳过 %n 个损坏的目录条目：%1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+70"/>
        <location line="+67"/>
        <source>approved</source>
        <translation>已批准</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>submitted</source>
        <translation>已提交</translation>
    </message>
    <message>
        <location line="-66"/>
        <location line="+67"/>
        <source>sent back</source>
        <translation>已退回</translation>
    </message>
    <message>
        <location line="-66"/>
        <source>not reviewed</source>
        <translation>未审核</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 of %2 studies shown: search to narrow them</source>
        <translation>显示 %2 个检查中的 %1 个：请搜索以缩小范围</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n studies</source>
        <translation>
            <numerusform>%n 个检查</numerusform>
        </translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Reading %1 from the share...</source>
        <translation>正在从共享读取 %1...</translation>
    </message>
    <message>
        <location line="+14"/>
        <source>no single grid</source>
        <translation>无单一网格</translation>
    </message>
    <message numerus="yes">
        <location line="+5"/>
        <source>%1  %2  %3  (%4, %n file(s))</source>
        <translation>
            <numerusform>%1  %2  %3  (%4，%n 个文件)</numerusform>
        </translation>
    </message>
    <message>
        <location line="+6"/>
        <source>(the image only)</source>
        <translation>（仅图像）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>(on another series)</source>
        <translation>（属于另一序列）</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>RT Structure Set: %1  %2</source>
        <translation>RT 结构集：%1  %2</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Being edited now: %1</source>
        <translation>正在编辑：%1</translation>
    </message>
    <message numerus="yes">
        <location line="+1"/>
        <source>%n series still being imported (not listed)</source>
        <translation>
            <numerusform>%n 个序列仍在导入中（未列出）</numerusform>
        </translation>
    </message>
    <message>
        <location line="+1"/>
        <source>No image series in this study (a share written before studies held images?)</source>
        <translation>此检查中没有图像序列（共享是在检查包含图像之前写入的？）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Skipped: %1</source>
        <translation>已跳过：%1</translation>
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
        <translation>%1，ID %2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>accession %1</source>
        <translation>检查号 %1</translation>
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
            <numerusform>已将 %n 个标签的统计数据写入 %1</numerusform>
        </translation>
    </message>
    <message>
        <location line="+7"/>
        <source>A DICOM SEG references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>DICOM SEG 需引用绘制时所用的 DICOM 序列：请从其 DICOM 文件夹打开该检查</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>DICOM SEG written to %1</source>
        <translation>已将 DICOM SEG 写入 %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG written to %1, measurement report to %2</source>
        <translation>DICOM SEG 已写入 %1，测量报告已写入 %2</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>An RT Structure Set references the DICOM series it was drawn on: open the study from its DICOM folder</source>
        <translation>RT 结构集引用绘制它的 DICOM 序列：请从其 DICOM 文件夹打开该检查</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>RT Structure Set written to %1: %2 ROIs, %3 contours</source>
        <translation>RT 结构集已写入 %1：%2 个 ROI，%3 条轮廓</translation>
    </message>
    <message>
        <location line="+27"/>
        <source>Cannot write the measurement report %1: a folder of that name is there; nothing was written</source>
        <translation>无法写入测量报告 %1：该位置已有同名文件夹；未写入任何文件</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>The measurement report %1 already exists; nothing was written (choose another name for the SEG, or allow replacing the report)</source>
        <translation>测量报告 %1 已存在；未写入任何文件（请为 SEG 选择其他名称，或允许替换该报告）</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Report written to %1</source>
        <translation>报告已写入 %1</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>A report on the share describes a saved revision: save the labels to the share first</source>
        <translation>共享中的报告描述的是已保存的修订版本：请先将标签保存到共享</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Cannot make a temporary folder for the report: %1</source>
        <translation>无法为报告创建临时文件夹：%1</translation>
    </message>
    <message>
        <location line="+36"/>
        <source>Publishing the report to the share</source>
        <translation>正在将报告发布到共享</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Report %1 of revision %2 published on the share: %3</source>
        <translation>修订版本 %2 的报告 %1 已发布到共享：%3</translation>
    </message>
    <message>
        <location line="+5"/>
        <source> (the audit record was not written: %1)</source>
        <translation>（审计记录未写入：%1）</translation>
    </message>
    <message>
        <location line="+39"/>
        <source>Not enough memory to mesh the label surfaces for export</source>
        <translation>内存不足，无法为导出网格化标签表面</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>No label surfaces to export: the map holds no labels</source>
        <translation>没有可导出的标签表面：标签图中没有标签</translation>
    </message>
    <message numerus="yes">
        <location line="+8"/>
        <source>%n surface file(s) written to %1</source>
        <translation>
            <numerusform>已将 %n 个表面文件写入 %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../app/gui/reports/study_exports_menu.cpp" line="+42"/>
        <source>Label &amp;Statistics (CSV, JSON)...</source>
        <translation>标签统计(&amp;S) (CSV, JSON)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+5"/>
        <location line="+16"/>
        <source>Export Label Statistics</source>
        <translation>导出标签统计</translation>
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
        <translation>标签统计，去标识化(&amp;D)...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Label Statistics of a Slice &amp;Range...</source>
        <translation>切片范围的标签统计(&amp;R)...</translation>
    </message>
    <message>
        <location line="+16"/>
        <source>&amp;PDF Report...</source>
        <translation>PDF 报告(&amp;P)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export PDF Report</source>
        <translation>导出 PDF 报告</translation>
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
        <translation>PDF 报告，去标识化...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>DICOM S&amp;EG...</source>
        <translation>DICOM SEG(&amp;E)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+4"/>
        <source>Export DICOM SEG</source>
        <translation>导出 DICOM SEG</translation>
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
        <translation>DICOM SEG，去标识化...</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>&amp;RT Structure Set...</source>
        <translation>&amp;RT 结构集...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Export RT Structure Set</source>
        <translation>导出 RT 结构集</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>RT Structure Set, De-identified...</source>
        <translation>RT 结构集（去标识化）...</translation>
    </message>
    <message>
        <location line="+9"/>
        <source>Export DICOM SEG and Measurement Report (the report is written beside it as NAME_sr.dcm)</source>
        <translation>导出 DICOM SEG 和测量报告（报告以 NAME_sr.dcm 写在其旁边）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Replace Measurement Report</source>
        <translation>替换测量报告</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The measurement report %1 already exists. Replace it?</source>
        <translation>测量报告 %1 已存在。是否替换？</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>DICOM SEG and &amp;Measurement Report (SR)...</source>
        <translation>DICOM SEG 和测量报告 (SR)(&amp;M)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>DICOM SEG and Measurement Report, De-identified...</source>
        <translation>DICOM SEG 和测量报告，去标识化...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Write DICOM SEG as &amp;Label Map (keeps label ids)</source>
        <translation>将 DICOM SEG 写为标签图 (保留标签 ID)(&amp;L)</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Publish Report to Share</source>
        <translation>将报告发布到共享</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Message (optional):</source>
        <translation>消息（可选）：</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Publish Report to S&amp;hare...</source>
        <translation>将报告发布到共享(&amp;H)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Publish Report to Share, De-identified...</source>
        <translation>将报告发布到共享，去标识化...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Label Su&amp;rfaces (STL)...</source>
        <translation>标签表面(&amp;R) (STL)...</translation>
    </message>
    <message>
        <location line="+1"/>
        <location line="+6"/>
        <source>Export Surfaces to Folder</source>
        <translation>将表面导出到文件夹</translation>
    </message>
    <message>
        <location line="-1"/>
        <source>Label Surfaces (&amp;OBJ)...</source>
        <translation>标签表面(&amp;O) (OBJ)...</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::StudyLoader</name>
    <message>
        <location filename="../app/gui/study/study_loader.cpp" line="-335"/>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location line="+21"/>
        <location line="+27"/>
        <location line="+23"/>
        <location line="+64"/>
        <location line="+121"/>
        <source>Loading %1</source>
        <translation>正在加载 %1</translation>
    </message>
    <message>
        <location line="-106"/>
        <source>Opening the structure set %1 from the share</source>
        <translation>正在从共享打开结构集 %1</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Indexing %1</source>
        <translation>正在索引 %1</translation>
    </message>
    <message>
        <location line="+40"/>
        <source>Loading %1 / %2 r%3</source>
        <translation>正在加载 %1 / %2 r%3</translation>
    </message>
    <message>
        <location line="+53"/>
        <source>Opening %1 from the share</source>
        <translation>正在从共享打开 %1</translation>
    </message>
    <message>
        <location line="+78"/>
        <source>  - incomplete: %1 unreadable file(s)</source>
        <translation>  - 不完整：%1 个无法读取的文件</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>  - warning: %1</source>
        <translation>  - 警告：%1</translation>
    </message>
    <message>
        <location line="+4"/>
        <location line="+25"/>
        <location line="+16"/>
        <location line="+7"/>
        <source>Open DICOM Series</source>
        <translation>打开 DICOM 序列</translation>
    </message>
    <message>
        <location line="-48"/>
        <source>Series:</source>
        <translation>序列：</translation>
    </message>
    <message>
        <location line="+20"/>
        <source>Series %1 is incomplete and was not opened. These files of it or beside it cannot be read:
%2</source>
        <translation>序列 %1 不完整，未打开。以下属于该序列或位于其旁的文件无法读取：
%2</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Series %1 is incomplete. These files of it or beside it cannot be read:
%2

Load the readable files anyway? The slices of the unreadable ones will be missing.</source>
        <translation>序列 %1 不完整。该序列中或其旁边的以下文件无法读取：
%2

仍然加载可读取的文件吗？无法读取的文件对应的切片将会缺失。</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>This series has problems:
%1</source>
        <translation>该序列存在问题：
%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>

Load it anyway?</source>
        <translation>

仍要加载吗？</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Loading series %1</source>
        <translation>正在加载序列 %1</translation>
    </message>
    <message>
        <location line="+65"/>
        <source>Opened %1</source>
        <translation>已打开 %1</translation>
    </message>
    <message>
        <location line="+2"/>
        <location line="+183"/>
        <source>The labels&apos; table could not be read, their ids are unnamed: %1</source>
        <translation>无法读取标签表，其 ID 未命名：%1</translation>
    </message>
    <message>
        <location line="-180"/>
        <source>Opened %1; its labels are named by the table last used (%2)</source>
        <translation>已打开 %1；其标签由最近使用的表命名（%2）</translation>
    </message>
    <message>
        <location line="+57"/>
        <source>Opened %1 from the share</source>
        <translation>已从共享打开 %1</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>%1 x %2 x %3 voxels, spacing %4 x %5 x %6 mm, origin (%7, %8, %9) mm LPS, axes %10</source>
        <translation>%1 x %2 x %3 体素，间距 %4 x %5 x %6 mm，原点 (%7, %8, %9) mm LPS，轴 %10</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>%1 is on another grid than the image.
Label map: %2
Image: %3</source>
        <translation>%1 与图像不在同一网格上。
标签图：%2
图像：%3</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It does not cover the image&apos;s space and was not opened.</source>
        <translation>它未覆盖图像空间，未打开。</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>It was not opened.</source>
        <translation>未打开。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Label Map on Another Grid</source>
        <translation>标签图位于其他网格</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>It covers the image&apos;s space. Resample it onto the image&apos;s grid (nearest neighbour)? Undo takes the resampled labels back.</source>
        <translation>它覆盖图像空间。是否将其重采样到图像网格（最近邻）？撤销可取回重采样的标签。</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Resampling %1</source>
        <translation>正在重采样 %1</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message numerus="yes">
        <location line="+59"/>
        <source>%1 (%n voxel(s))</source>
        <translation>
            <numerusform>%1（%n 个体素）</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+4"/>
        <source>Labels from %1; %n value(s) the table does not name: %2</source>
        <translation>
            <numerusform>标签来自 %1；表中未命名的值有 %n 个：%2</numerusform>
        </translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Labels from %1, named by the table last used (%2)</source>
        <translation>来自 %1 的标签，由最近使用的表命名（%2）</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Labels from %1</source>
        <translation>已加载来自 %1 的标签</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>%1: %2 voxels belonged to more than one segment; the higher segment number was kept</source>
        <translation>%1：%2 个体素属于多个分段；已保留编号较大的分段</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::SurfaceBuilder</name>
    <message>
        <location filename="../app/gui/views/surface_builder.cpp" line="+102"/>
        <location line="+56"/>
        <source>building surfaces...</source>
        <translation>正在生成表面...</translation>
    </message>
    <message>
        <location line="+25"/>
        <source>not enough memory to rebuild the surfaces</source>
        <translation>内存不足，无法重建表面</translation>
    </message>
    <message numerus="yes">
        <location line="-66"/>
        <source>%n surface(s)</source>
        <translation>
            <numerusform>%n 个表面</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location line="+2"/>
        <source>%n surface(s), reduced detail</source>
        <translation>
            <numerusform>%n 个表面，细节已降低</numerusform>
        </translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser, as the preferences ask (File &gt; Preferences &gt; 3D surface detail). Exported surface files are meshed at full detail.</source>
        <translation>按首选项设置，大标签以较粗的网格显示（文件 &gt; 首选项 &gt; 3D 表面细节）。导出的表面文件始终以完整细节网格化。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Large labels are meshed coarser: the OpenGL renderer (%1) draws on the CPU, where full detail costs memory and slows every frame. File &gt; Preferences &gt; 3D surface detail can ask for full detail; exported surface files are always full detail.</source>
        <translation>大标签以较粗的网格显示：OpenGL 渲染器（%1）在 CPU 上绘制，完整细节会占用内存并拖慢每一帧。可在 文件 &gt; 首选项 &gt; 3D 表面细节 中选择完整细节；导出的表面文件始终为完整细节。</translation>
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
        <translation>训练：%1</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Training %1 after %2 iterations; best validation Dice %3</source>
        <translation>训练在 %2 次迭代后%1；最佳验证 Dice %3</translation>
    </message>
    <message>
        <location line="+43"/>
        <source>ended</source>
        <translation>结束</translation>
    </message>
    <message>
        <location line="-3"/>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped (checkpoint saved)</source>
        <translation>已停止（检查点已保存）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>stopped early</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <location line="-39"/>
        <location line="+31"/>
        <location line="+318"/>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <location line="-346"/>
        <source>No share is open, so the model was not published: its checkpoints are in %1 (open or create a share and train again to publish it)</source>
        <translation>未打开共享，因此模型未发布：其检查点位于 %1（打开或创建共享后重新训练即可发布）</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Training failed: %1</source>
        <translation>训练失败：%1</translation>
    </message>
    <message>
        <location line="+12"/>
        <source>Following the run %1 started earlier</source>
        <translation>正在跟踪先前启动的训练 %1</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Last run %1: %2 after %3 iterations; best validation Dice %4</source>
        <translation>上次训练 %1：%3 次迭代后%2；最佳验证 Dice %4</translation>
    </message>
    <message>
        <location line="+26"/>
        <source>Data:</source>
        <translation>数据：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>A case list file (below)</source>
        <translation>病例列表文件（见下）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>cases.json: image and label files (or choose a dataset of the share above)</source>
        <translation>cases.json：图像与标签文件（或在上方选择共享存储的数据集）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>New atlas network (SegResNetDS)</source>
        <translation>新的图谱网络（SegResNetDS）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Fine-tune VISTA-3D</source>
        <translation>微调 VISTA-3D</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>VISTA-3D checkpoint to fine-tune: a file (model.pt) or share:ROOT#MODEL</source>
        <translation>要微调的 VISTA-3D 检查点：文件（model.pt）或 share:ROOT#MODEL</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>the model&apos;s name on the share (checkpoints/&lt;name&gt;/)</source>
        <translation>模型在共享存储中的名称（checkpoints/&lt;name&gt;/）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>label table (names; optional)</source>
        <translation>标签表（名称；可选）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Iterations:</source>
        <translation>迭代次数：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate every:</source>
        <translation>验证间隔：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Device:</source>
        <translation>设备：</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Advanced:</source>
        <translation>高级：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>more delineate-train options, e.g. --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</source>
        <translation>更多 delineate-train 选项，例如 --patch 64,64,64 --init-filters 16 --learning-rate 1e-3</translation>
    </message>
    <message>
        <location line="+308"/>
        <source>Stopping...</source>
        <translation>正在停止...</translation>
    </message>
    <message>
        <location line="-306"/>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validate the weights reached, save them as a checkpoint and end the run</source>
        <translation>验证当前权重，保存为检查点并结束运行</translation>
    </message>
    <message>
        <location line="+93"/>
        <source>No share is open: the model stays in its run folder, unpublished</source>
        <translation>未打开共享：模型保留在其运行文件夹中，未发布</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>Stopping: validating and saving a checkpoint...</source>
        <translation>正在停止：验证并保存检查点...</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>On the CPU the patch defaults to 64x64x64 voxels: smaller patches make training on the CPU feasible (about 0.6 iterations/s on a mouse atlas, against 0.07-0.18 at 96x96x80).</source>
        <translation>在 CPU 上，patch 默认为 64x64x64 体素：较小的 patch 使 CPU 训练可行（小鼠图谱约 0.6 次迭代/秒，而 96x96x80 时为 0.07-0.18）。</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>On a GPU the patch defaults to the cases&apos; size, up to 128 voxels a side, and the network to 32 filters.</source>
        <translation>在 GPU 上，patch 默认为病例的大小，每边最多 128 体素，网络为 32 个滤波器。</translation>
    </message>
    <message>
        <location line="+194"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location line="-304"/>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <location line="-15"/>
        <source>Time budget:</source>
        <translation>时间预算：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. 55m or 1h30m: the iterations that fit it (empty: the iterations above)</source>
        <translation>例如 55m 或 1h30m：在此时间内能完成的迭代次数（留空：使用上面的迭代次数）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Run on:</source>
        <translation>运行于：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm cluster</source>
        <translation>Slurm 集群</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Cluster folder:</source>
        <translation>集群文件夹：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>a folder every cluster node mounts (the run&apos;s checkpoints and log go there)</source>
        <translation>每个集群节点都挂载的文件夹（训练的检查点和日志保存在此）</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Slurm:</source>
        <translation>Slurm：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>e.g. --gpus-per-node 1 --time 2:00:00 --partition gpu (--nodes, --tasks-per-node: one rank each)</source>
        <translation>例如 --gpus-per-node 1 --time 2:00:00 --partition gpu（--nodes、--tasks-per-node：每个任务一个进程）</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>Continue the run from its newest checkpoint</source>
        <translation>从最新检查点继续训练</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Models...</source>
        <translation>模型...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>The share&apos;s trained models: metrics, datasets, comparison; choose the AI engine</source>
        <translation>共享中已训练的模型：指标、数据集、比较；选择 AI 引擎</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next Case</source>
        <translation>下一个病例</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Rank the share&apos;s studies without approved labels by this model&apos;s uncertainty and open the most uncertain one</source>
        <translation>按此模型的不确定性对共享中没有已批准标签的检查排序，并打开最不确定的一个</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Study</source>
        <translation>检查</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Uncertainty</source>
        <translation>不确定性</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Labels</source>
        <translation>标签</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Loss</source>
        <translation>损失</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Validation Dice</source>
        <translation>验证 Dice</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Id</source>
        <translation>ID</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Structure</source>
        <translation>结构</translation>
    </message>
    <message>
        <location line="+0"/>
        <source>Dice</source>
        <translation>Dice</translation>
    </message>
    <message>
        <location line="+24"/>
        <source>Choose a dataset of the share or a case list file</source>
        <translation>请选择共享存储的数据集或病例列表文件</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>No share is open to take the dataset from</source>
        <translation>未打开可提供数据集的共享存储</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Fine-tuning VISTA-3D starts from a checkpoint: give its file</source>
        <translation>微调 VISTA-3D 需要一个检查点：请给出其文件</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Choose a folder every cluster node mounts (an absolute path) for a Slurm run</source>
        <translation>请为 Slurm 训练选择一个每个集群节点都挂载的文件夹（绝对路径）</translation>
    </message>
    <message>
        <location line="+15"/>
        <source>Training could not start: %1</source>
        <translation>训练无法启动：%1</translation>
    </message>
    <message>
        <location line="+5"/>
        <source>Training %1: resuming from its newest checkpoint, reading the cases...</source>
        <translation>训练 %1：从最新的检查点继续，正在读取病例...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Training %1: reading the cases...</source>
        <translation>训练 %1：正在读取病例...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Training %1: submitted to Slurm as job %2; it starts when the cluster runs it</source>
        <translation>训练 %1：已作为作业 %2 提交到 Slurm；集群开始运行时即开始</translation>
    </message>
    <message>
        <location line="+30"/>
        <source>it %1/%2  loss %3  %4 it/s  ETA %5  data wait %6%  %7</source>
        <translation>迭代 %1/%2  损失 %3  %4 次/秒  剩余 %5  数据等待 %6%  %7</translation>
    </message>
    <message>
        <location line="+8"/>
        <source>  validation Dice %1</source>
        <translation>  验证 Dice %1</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  memory %1 GB</source>
        <translation>  内存 %1 GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  GPU memory in use %1 GB</source>
        <translation>  GPU 已用显存 %1 GB</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>  last %1</source>
        <translation>  最新 %1</translation>
    </message>
    <message>
        <location line="+50"/>
        <source>No share is open to rank its studies</source>
        <translation>未打开可排序其检查的共享</translation>
    </message>
    <message>
        <location line="+7"/>
        <source>Name the model that ranks the studies (Name:)</source>
        <translation>请命名用于排序检查的模型（名称：）</translation>
    </message>
    <message>
        <location line="+18"/>
        <source>cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <location line="+4"/>
        <source>Ranking the studies without approved labels by %1...</source>
        <translation>正在用 %1 对没有已批准标签的检查排序...</translation>
    </message>
    <message>
        <location line="+19"/>
        <source>Ranking 1 study on %1...</source>
        <translation>正在 %1 上对 1 个检查排序...</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Ranking %1 studies on %2...</source>
        <translation>正在 %2 上对 %1 个检查排序...</translation>
    </message>
    <message>
        <location line="+2"/>
        <source>Ranked %1 of %2: %3 (uncertainty %4)</source>
        <translation>已排序 %1/%2：%3（不确定性 %4）</translation>
    </message>
    <message>
        <location line="+6"/>
        <source>Not ranked: %1: %2</source>
        <translation>未排序：%1：%2</translation>
    </message>
    <message>
        <location line="+10"/>
        <source>the ranking was stopped</source>
        <translation>排序已停止</translation>
    </message>
    <message>
        <location line="+11"/>
        <source>delineate-train ended without a ranking</source>
        <translation>delineate-train 结束但未给出排序</translation>
    </message>
    <message>
        <location line="+17"/>
        <source>Ranking failed: %1</source>
        <translation>排序失败：%1</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Every study of the share with an image has approved labels: nothing to rank</source>
        <translation>共享中每个有图像的检查都已有批准的标签：无需排序</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>Next case: %1 (uncertainty %2), the only study to label</source>
        <translation>下一个病例：%1（不确定性 %2），唯一待标注的检查</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>Next case: %1 (uncertainty %2), the most uncertain of %3 studies</source>
        <translation>下一个病例：%1（不确定性 %2），%3 个检查中最不确定的</translation>
    </message>
</context>
<context>
    <name>delineate::app::gui::TrainingRun</name>
    <message>
        <location filename="../app/gui/training/training_run.cpp" line="+137"/>
        <source>cannot start %1: %2</source>
        <translation>无法启动 %1：%2</translation>
    </message>
    <message>
        <location line="+28"/>
        <location line="+11"/>
        <source>cannot submit to Slurm: %1</source>
        <translation>无法提交到 Slurm：%1</translation>
    </message>
    <message>
        <location line="+70"/>
        <source>ended without a result (see %1)</source>
        <translation>结束但没有结果（见 %1）</translation>
    </message>
    <message>
        <location line="+38"/>
        <source>scancel: %1</source>
        <translation>scancel：%1</translation>
    </message>
    <message>
        <location line="+44"/>
        <source>delineate-train ended without a result (see %1)</source>
        <translation>delineate-train 未给出结果即结束（见 %1）</translation>
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
        <translation>尚未打开检查。请打开一个：</translation>
    </message>
    <message>
        <location line="+1"/>
        <source>You can also drop an image file (NIfTI, NRRD, MetaImage), a DICOM file or a DICOM folder onto this window, or open one from your file manager.</source>
        <translation>也可以将图像文件（NIfTI、NRRD、MetaImage）、DICOM 文件或 DICOM 文件夹拖放到此窗口，或从文件管理器中打开。</translation>
    </message>
    <message>
        <location line="+3"/>
        <source>&lt;b&gt;Models.&lt;/b&gt; Automatic labels work without any download: the classic engine segments body, lungs, airway and bone on the CPU, and refines any label by clicks. VISTA-3D (127 classes, best on a GPU) needs its checkpoint, which is not installed with Delineate (for its licence and its size): AI &amp;gt; Get Models says where to get it, downloads or registers it and makes it the engine&apos;s (VISTA-3D also needs the delineate-torch package). You can also train a model on your own labels in the Training dock.</source>
        <translation>&lt;b&gt;模型。&lt;/b&gt;自动标签无需下载：经典引擎在 CPU 上分割身体、肺、气道和骨骼，并可通过点击细化任意标签。VISTA-3D（127 个类别，最好在 GPU 上运行）需要其检查点，由于许可和大小的原因未随 Delineate 安装：AI &amp;gt; 获取模型 会说明从何处获取，下载或登记它并将其设为引擎所用（VISTA-3D 还需要 delineate-torch 软件包）。您也可以在训练停靠窗口中用自己的标签训练模型。</translation>
    </message>
</context>
</TS>
