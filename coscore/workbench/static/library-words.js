// The words of the page's data files, exams and versions (library.js), in Chinese and
// English; workbench.js merges them into its own (words.js), so they switch with the page's
// language like every other word of it. The messages the server writes (a file's notes and
// refusals) come with their catalog ids and are rendered by i18n.js, not here.
export const LIBRARY_WORDS = {
    zh: {
        'lib.title': '数据文件、试卷与版本', 'lib.files': '导入数据文件', 'lib.files.pick': 'CSV、TSV、JSON Lines、Parquet 或 .xlsx',
        'lib.map.blanks': '空（按顺序）', 'lib.map.label': '教师评分', 'lib.map.label2': '第二位评分人', 'lib.map.group': '分组（班级）',
        'lib.map.id': '学号', 'lib.map.name': '数据集名称', 'lib.map.import': '导入', 'lib.map.none': '（无）',
        'lib.exam': '试卷', 'lib.exam.pick': '试卷文件（YAML 或 JSON，规则写在文件内）', 'lib.versions': '规则的版本',
        'lib.versions.agreement': '在当前数据集上比较各版本',
        'lib.up.sending': '上传中……', 'lib.up.read': '{f}：{c} 列；前 {n} 行如下。选择各列后导入。',
        'lib.up.failed': '无法读取：{m}', 'lib.imp.running': '导入中……', 'lib.imp.done': '已导入“{n}”：{r} 行',
        'lib.imp.leftout': '，{k} 行没有评分（{v}）', 'lib.imp.failed': '未导入：{m}', 'lib.rows': '{n} 行',
        'lib.exam.running': '打开试卷……', 'lib.exam.done': '{e}：{n} 道题，最差的在前', 'lib.exam.nodata': '{e}：{n} 道题（选择数据集后显示各题的一致性）',
        'lib.exam.failed': '无法打开试卷：{m}', 'lib.exam.nomarks': '没有教师评分',
        'lib.ver.none': '（保存规则后，这里列出每个版本）', 'lib.ver.load': '载入', 'lib.ver.diff': '与上一版比较',
        'lib.ver.revert': '恢复为此版本', 'lib.ver.reverted': '已恢复：保存为版本 {v}', 'lib.ver.nodata': '先选择一个数据集',
        'lib.ver.scoring': '评分中……', 'lib.ver.failed': '失败：{m}', 'lib.notes': '说明：{m}',
        'lib.ver.exam': '来自试卷 {x}', 'lib.ver.revertnote': '恢复为版本 {x}', 'lib.ver.file': '来自文件 {x}'
    },
    en: {
        'lib.title': 'Data files, exams and versions', 'lib.files': 'Import a data file', 'lib.files.pick': 'CSV, TSV, JSON Lines, Parquet or .xlsx',
        'lib.map.blanks': 'Blanks (in order)', 'lib.map.label': 'Teacher\'s marks', 'lib.map.label2': 'Second rater', 'lib.map.group': 'Group (class)',
        'lib.map.id': 'Id', 'lib.map.name': 'Dataset name', 'lib.map.import': 'Import', 'lib.map.none': '(none)',
        'lib.exam': 'Exam', 'lib.exam.pick': 'Exam file (YAML or JSON, rules inline)', 'lib.versions': 'Rule versions',
        'lib.versions.agreement': 'Compare the versions on the current dataset',
        'lib.up.sending': 'Uploading…', 'lib.up.read': '{f}: {c} columns; the first {n} rows below. Choose the columns, then import.',
        'lib.up.failed': 'Cannot read it: {m}', 'lib.imp.running': 'Importing…', 'lib.imp.done': 'Imported “{n}”: {r} rows',
        'lib.imp.leftout': ', {k} rows without a mark ({v})', 'lib.imp.failed': 'Not imported: {m}', 'lib.rows': '{n} rows',
        'lib.exam.running': 'Opening the exam…', 'lib.exam.done': '{e}: {n} items, worst first', 'lib.exam.nodata': '{e}: {n} items (choose a dataset to see their agreement)',
        'lib.exam.failed': 'Cannot open the exam: {m}', 'lib.exam.nomarks': 'no marks',
        'lib.ver.none': '(each saved version is listed here)', 'lib.ver.load': 'load', 'lib.ver.diff': 'diff with previous',
        'lib.ver.revert': 'revert to this', 'lib.ver.reverted': 'Reverted: saved as version {v}', 'lib.ver.nodata': 'choose a dataset first',
        'lib.ver.scoring': 'scoring…', 'lib.ver.failed': 'failed: {m}', 'lib.notes': 'Note: {m}',
        'lib.ver.exam': 'from the exam {x}', 'lib.ver.revertnote': 'reverted to version {x}', 'lib.ver.file': 'from the file {x}'
    }
};
